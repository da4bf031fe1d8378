import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { listWaitingList, setEntryPriority } from '../domain/waiting-list/manage-waiting-list.js'
import { WAITING_ENTRY_STATUSES } from '../domain/waiting-list/waiting-list.table.js'
import { requirePermission } from '../iam/staff-auth.js'
import { errorResponses, pageMeta, pageOf, ZIdParams, ZPageQuery } from '../platform/http/schemas.js'
import { ZWaitingEntry } from '../storefront/waiting-list.schemas.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'
import { actorOf } from './staff-actor.js'

const ZWaitingListQuery = ZPageQuery.extend({ status: z.enum(WAITING_ENTRY_STATUSES).optional() })

/** Waiting lists (docs/waiting-list.md): an inventory's queue, read with `adm.orders.read`, moved and served by hand with `adm.orders.write`. */
export const waitingListRoutes: FastifyPluginAsyncZod = async (app) => {
  const read = requirePermission('adm.orders.read')
  const write = requirePermission('adm.orders.write')

  app.get(
    '/inventories/:id/waiting-list',
    {
      onRequest: read,
      schema: {
        tags: TAGS,
        operationId: 'admListWaitingList',
        summary: "List an inventory's waiting list",
        description: 'In serving order: priority (higher first), then who joined first; filter by `status`. Needs `adm.orders.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        querystring: ZWaitingListQuery,
        response: { 200: pageOf(ZWaitingEntry), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { rows, total } = await listWaitingList(app.db, { inventoryId: request.params.id, ...request.query })
      return { data: rows, meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.put(
    '/waiting-list/:id',
    {
      onRequest: write,
      schema: {
        tags: TAGS,
        operationId: 'admSetWaitingEntryPriority',
        summary: "Change a waiting list entry's priority",
        description: 'Higher is served first; the queue is served again at once. Needs `adm.orders.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: z.strictObject({ priority: z.number().int().min(-1000).max(1000) }),
        response: { 200: ZWaitingEntry, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => setEntryPriority(app.db, { entryId: request.params.id, priority: request.body.priority, actor: actorOf(request) }),
  )

  app.post(
    '/waiting-list/:id/offer',
    {
      onRequest: write,
      schema: {
        tags: TAGS,
        operationId: 'admOfferWaitingEntry',
        summary: 'Make an offer to a waiting list entry now',
        description:
          'Out of turn: holds its quantity of the free tickets for it and emails the offer. 409 `insufficient_inventory` when too few are free, ' +
          '`entry_not_waiting` when it no longer waits, `waiting_list_closed` when its date passed or its event is not on sale. Needs `adm.orders.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        response: { 200: ZWaitingEntry, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => app.waitingList.offerNow(request.params.id, actorOf(request)),
  )
}
