import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { createInventory } from '../domain/catalog/create-inventory.js'
import { listInventories } from '../domain/catalog/list-inventories.js'
import { updateInventory } from '../domain/catalog/update-inventory.js'
import { errorResponses, pageMeta, pageOf, ZIdParams, ZPageQuery } from '../platform/http/schemas.js'
import { requirePermission } from '../iam/staff-auth.js'
import { actorOf } from './staff-actor.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'
import { toInventory, ZCreateInventory, ZInventory, ZUpdateInventory } from './inventories.schemas.js'

/** Inventories: one kind of ticket on one date of an event. */
export const inventoryRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/events/:id/inventories',
    {
      onRequest: requirePermission('adm.catalog.write'),
      schema: {
        tags: TAGS,
        operationId: 'admCreateInventory',
        summary: 'Add an inventory to an event',
        description: 'Needs `adm.catalog.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZCreateInventory,
        response: { 201: ZInventory, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const inventory = await createInventory(app.db, { eventId: request.params.id, ...request.body, actor: actorOf(request) })
      return reply.code(201).send(toInventory(inventory))
    },
  )

  app.get(
    '/events/:id/inventories',
    {
      onRequest: requirePermission('adm.catalog.read'),
      schema: {
        tags: TAGS,
        operationId: 'admListInventories',
        summary: "List an event's inventories",
        description: 'By date, then name, with what is sold, held by open baskets and available. Needs `adm.catalog.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        querystring: ZPageQuery,
        response: { 200: pageOf(ZInventory), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { rows, total } = await listInventories(app.db, { eventId: request.params.id, ...request.query })
      return { data: rows.map(toInventory), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.put(
    '/inventories/:id',
    {
      onRequest: requirePermission('adm.catalog.write'),
      schema: {
        tags: TAGS,
        operationId: 'admUpdateInventory',
        summary: 'Update an inventory',
        description:
          'Changes only the fields given. The capacity may not drop below the tickets sold plus those held by open baskets ' +
          '(409 `insufficient_inventory`). Needs `adm.catalog.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZUpdateInventory,
        response: { 200: ZInventory, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => toInventory(await updateInventory(app.db, { inventoryId: request.params.id, ...request.body, actor: actorOf(request) })),
  )
}
