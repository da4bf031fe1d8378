import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { createEvent } from '../domain/catalog/create-event.js'
import { getEvent } from '../domain/catalog/get-event.js'
import { listEvents } from '../domain/catalog/list-events.js'
import { updateEvent } from '../domain/catalog/update-event.js'
import { errorResponses, pageMeta, pageOf, ZIdParams } from '../platform/http/schemas.js'
import { requirePermission } from '../iam/staff-auth.js'
import { actorOf } from './staff-actor.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'
import { fromEventBody, toEvent, ZCreateEvent, ZEvent, ZEventListQuery, ZUpdateEvent } from './events.schemas.js'

/** A seller's events, of every status. */
export const eventRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/sellers/:id/events',
    {
      onRequest: requirePermission('adm.catalog.write'),
      schema: {
        tags: TAGS,
        operationId: 'admCreateEvent',
        summary: 'Create an event of a seller',
        description: 'Attributes and images get server-generated ids. Needs `adm.catalog.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZCreateEvent,
        response: { 201: ZEvent, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const event = await createEvent(app.db, { sellerId: request.params.id, ...fromEventBody(request.body), actor: actorOf(request) })
      return reply.code(201).send(toEvent(event))
    },
  )

  app.get(
    '/sellers/:id/events',
    {
      onRequest: requirePermission('adm.catalog.read'),
      schema: {
        tags: TAGS,
        operationId: 'admListEvents',
        summary: "List a seller's events",
        description: 'Newest first, every status unless `status` is given. Needs `adm.catalog.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        querystring: ZEventListQuery,
        response: { 200: pageOf(ZEvent), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { rows, total } = await listEvents(app.db, { sellerId: request.params.id, ...request.query })
      return { data: rows.map(toEvent), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.get(
    '/events/:id',
    {
      onRequest: requirePermission('adm.catalog.read'),
      schema: {
        tags: TAGS,
        operationId: 'admGetEvent',
        summary: 'Get an event',
        description: 'Needs `adm.catalog.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        response: { 200: ZEvent, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => toEvent(await getEvent(app.db, request.params.id)),
  )

  app.put(
    '/events/:id',
    {
      onRequest: requirePermission('adm.catalog.write'),
      schema: {
        tags: TAGS,
        operationId: 'admUpdateEvent',
        summary: 'Update an event',
        description: 'Changes only the fields given. Needs `adm.catalog.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZUpdateEvent,
        response: { 200: ZEvent, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => toEvent(await updateEvent(app.db, { eventId: request.params.id, ...fromEventBody(request.body), actor: actorOf(request) })),
  )
}
