import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { blockSeats } from '../domain/seating/block-seats.js'
import { listInventorySeats } from '../domain/seating/list-inventory-seats.js'
import { requirePermission } from '../iam/staff-auth.js'
import { errorResponses, pageMeta, pageOf, ZIdParams } from '../platform/http/schemas.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'
import { ZBlockedSeats, ZBlockSeats, ZInventorySeat, ZInventorySeatsQuery } from './inventory-seats.schemas.js'
import { actorOf } from './staff-actor.js'

/** The seats of a seated inventory (docs/seating.md): who holds or bought each, and the seats kept off sale. */
export const inventorySeatRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/inventories/:id/seats',
    {
      onRequest: requirePermission('adm.catalog.read'),
      schema: {
        tags: TAGS,
        operationId: 'admListInventorySeats',
        summary: "List an inventory's seats, with their state and holder",
        description:
          "In the plan's order. A held seat names the basket holding it; a sold one, its order and its ticket's identifier. " +
          'An unseated inventory has none. Needs `adm.catalog.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        querystring: ZInventorySeatsQuery,
        response: { 200: pageOf(ZInventorySeat), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { rows, total } = await listInventorySeats(app.db, { inventoryId: request.params.id, ...request.query })
      return { data: rows, meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.post(
    '/inventories/:id/seats/block',
    {
      onRequest: requirePermission('adm.catalog.write'),
      schema: {
        tags: TAGS,
        operationId: 'admBlockInventorySeats',
        summary: 'Block or unblock seats of an inventory',
        description:
          'A blocked seat is never sold and not available (`available` drops by it). Seats the inventory does not sell: 400 naming each; ' +
          'blocking a held or sold seat: 409 `seat_unavailable` with `details.seats`, and nothing changes. Storefront seat maps show it at once. ' +
          'Needs `adm.catalog.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZBlockSeats,
        response: { 200: ZBlockedSeats, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({ data: await blockSeats(app.db, { inventoryId: request.params.id, ...request.body, actor: actorOf(request) }) }),
  )
}
