import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { createAffiliate } from '../domain/sellers/create-affiliate.js'
import { deactivateAffiliate } from '../domain/sellers/deactivate-affiliate.js'
import { listAffiliates } from '../domain/sellers/list-affiliates.js'
import { updateAffiliate } from '../domain/sellers/update-affiliate.js'
import { errorResponses, pageMeta, pageOf, ZIdParams, ZPageQuery } from '../platform/http/schemas.js'
import { requirePermission } from '../iam/staff-auth.js'
import { actorOf } from './staff-actor.js'
import { toAffiliate, ZAffiliate, ZCreateAffiliate, ZUpdateAffiliate } from './affiliates.schemas.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'

/** Affiliates: partners selling a seller's events under their own code. */
export const affiliateRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/sellers/:id/affiliates',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admCreateAffiliate',
        summary: 'Create an affiliate of a seller',
        description: 'The code is unique per seller, case-insensitive (409 `already_exists`). Needs `adm.sellers.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZCreateAffiliate,
        response: { 201: ZAffiliate, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { code, name, event_ids, commission_rate } = request.body
      const affiliate = await createAffiliate(app.db, {
        sellerId: request.params.id,
        code,
        name,
        eventIds: event_ids,
        commissionRate: commission_rate,
        actor: actorOf(request),
      })
      return reply.code(201).send(toAffiliate(affiliate))
    },
  )

  app.get(
    '/sellers/:id/affiliates',
    {
      onRequest: requirePermission('adm.sellers.read'),
      schema: {
        tags: TAGS,
        operationId: 'admListAffiliates',
        summary: "List a seller's affiliates",
        description: 'By code, inactive ones included. Needs `adm.sellers.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        querystring: ZPageQuery,
        response: { 200: pageOf(ZAffiliate), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { rows, total } = await listAffiliates(app.db, { sellerId: request.params.id, ...request.query })
      return { data: rows.map(toAffiliate), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.put(
    '/affiliates/:id',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admUpdateAffiliate',
        summary: 'Update an affiliate',
        description:
          'Name, active, commission rate, and the events it may sell (replaced as a whole). The code cannot change: integrations send it. ' +
          'Storefronts see the change from their next request on. Needs `adm.sellers.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZUpdateAffiliate,
        response: { 200: ZAffiliate, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { name, active, event_ids, commission_rate } = request.body
      return toAffiliate(
        await updateAffiliate(app.db, {
          affiliateId: request.params.id,
          name,
          active,
          eventIds: event_ids,
          commissionRate: commission_rate,
          actor: actorOf(request),
        }),
      )
    },
  )

  app.delete(
    '/affiliates/:id',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admDeactivateAffiliate',
        summary: 'Deactivate an affiliate',
        description:
          'Deactivates rather than deletes: baskets and orders keep their attribution, the affiliate stays listed with ' +
          '`active: false` and its code is refused from the next storefront request on. `PUT` with `active: true` restores it. ' +
          'Deactivating an inactive affiliate answers 204 again. Needs `adm.sellers.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        response: { 204: z.undefined().describe('Deactivated'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deactivateAffiliate(app.db, { affiliateId: request.params.id, actor: actorOf(request) })
      return reply.code(204).send()
    },
  )
}
