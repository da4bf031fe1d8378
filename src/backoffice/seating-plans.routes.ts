import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { createSeatingPlan } from '../domain/seating/create-seating-plan.js'
import { deleteSeatingPlan } from '../domain/seating/delete-seating-plan.js'
import { getSeatingPlan } from '../domain/seating/get-seating-plan.js'
import { listSeatingPlans } from '../domain/seating/list-seating-plans.js'
import { requirePermission } from '../iam/staff-auth.js'
import { errorResponses, pageMeta, pageOf, ZIdParams, ZPageQuery } from '../platform/http/schemas.js'
import { toSeatingPlan, toSeatingPlanWithPlan, ZSeatingPlan, ZSeatingPlanWithPlan } from '../storefront/seating-plans.schemas.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'
import { PLAN_BODY_LIMIT, refuseMisshapenPlan, ZCreateSeatingPlan } from './seating-plans.schemas.js'
import { actorOf } from './staff-actor.js'

/** A seller's seating plans (docs/seating.md): uploaded once, never changed, deleted while unused. */
export const seatingPlanRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/sellers/:id/seating-plans',
    {
      onRequest: requirePermission('adm.catalog.write'),
      bodyLimit: PLAN_BODY_LIMIT,
      preValidation: refuseMisshapenPlan,
      schema: {
        tags: TAGS,
        operationId: 'admCreateSeatingPlan',
        summary: 'Upload a seating plan of a seller',
        description:
          "`plan` is in pretix's seating-plan format, stored as uploaded. A seat naming an unknown category, a `seat_guid` used twice, " +
          'a name or text of the plan (`name` too) with a character XML 1.0 forbids (controls but tab and line breaks, U+FFFE, U+FFFF), ' +
          'no seats or more than 100,000: 400 `validation_error` with the path (the first 50 problems). Bodies up to 16 MiB (413 above). ' +
          'Needs `adm.catalog.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZCreateSeatingPlan,
        response: { 201: ZSeatingPlan, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request, reply) => {
      const plan = await createSeatingPlan(app.db, { sellerId: request.params.id, ...request.body, actor: actorOf(request) })
      return reply.code(201).send(toSeatingPlan(plan))
    },
  )

  app.get(
    '/sellers/:id/seating-plans',
    {
      onRequest: requirePermission('adm.catalog.read'),
      schema: {
        tags: TAGS,
        operationId: 'admListSeatingPlans',
        summary: "List a seller's seating plans",
        description: 'Newest first, without their documents. Needs `adm.catalog.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        querystring: ZPageQuery,
        response: { 200: pageOf(ZSeatingPlan), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { rows, total } = await listSeatingPlans(app.db, { sellerId: request.params.id, ...request.query })
      return { data: rows.map(toSeatingPlan), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.get(
    '/seating-plans/:id',
    {
      onRequest: requirePermission('adm.catalog.read'),
      schema: {
        tags: TAGS,
        operationId: 'admGetSeatingPlan',
        summary: 'Get a seating plan, with its document',
        description: 'Needs `adm.catalog.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        response: { 200: ZSeatingPlanWithPlan, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => toSeatingPlanWithPlan(await getSeatingPlan(app.db, request.params.id)),
  )

  app.delete(
    '/seating-plans/:id',
    {
      onRequest: requirePermission('adm.catalog.write'),
      schema: {
        tags: TAGS,
        operationId: 'admDeleteSeatingPlan',
        summary: 'Delete a seating plan',
        description: 'Its seats go with it. While an inventory uses it: 409 `seating_plan_in_use`. Needs `adm.catalog.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        response: { 204: z.undefined().describe('Deleted'), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await deleteSeatingPlan(app.db, { planId: request.params.id, actor: actorOf(request) })
      return reply.code(204).send()
    },
  )
}
