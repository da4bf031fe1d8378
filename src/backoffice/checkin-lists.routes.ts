import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ZCheckinList, ZCheckinListPage, ZCheckinListRequest, ZCheckinPage, ZCheckinQuery, ZCheckinStatus, ZStatusQuery } from '../checkin/checkin.schemas.js'
import { findEventById } from '../domain/catalog/events.repo.js'
import { findList, listRowsOfEvent } from '../domain/checkin/lists.repo.js'
import { listScans } from '../domain/checkin/list-scans.js'
import { getListStatusById } from '../domain/checkin/list-status.js'
import { createCheckinList, deleteCheckinList, updateCheckinList, type CheckinListInput } from '../domain/checkin/save-checkin-list.js'
import { toCheckinListView } from '../domain/checkin/views.js'
import { requirePermission } from '../iam/staff-auth.js'
import { AppError } from '../platform/errors.js'
import { errorResponses, pageMeta, ZIdParams, ZPageQuery } from '../platform/http/schemas.js'
import { actorOf } from './staff-actor.js'

const tags = ['backoffice']
const security = [{ staffBearer: [] }]

const toInput = (body: {
  name: string
  inventory_ids?: string[] | null | undefined
  variants?: string[] | null | undefined
  allow_multiple_entries?: boolean | undefined
  allow_entry_after_exit?: boolean | undefined
}): CheckinListInput => ({
  name: body.name,
  inventoryIds: body.inventory_ids,
  variants: body.variants,
  allowMultipleEntries: body.allow_multiple_entries,
  allowEntryAfterExit: body.allow_entry_after_exit,
})

/** `/adm/v1` check-in lists of events, their status and history of scans. */
export const checkinListRoutes: FastifyPluginAsyncZod = async (app) => {
  const read = requirePermission('adm.checkin.read')
  const write = requirePermission('adm.checkin.write')

  app.post(
    '/events/:id/checkin-lists',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admCreateCheckinList',
        summary: 'Create a check-in list',
        description:
          'Needs `adm.checkin.write`. A list admits the event’s tickets of its inventories (all by default) and variants (all by default), ' +
          'once each unless `allow_multiple_entries`, again after an exit unless `allow_entry_after_exit` is false. Lists are independent: ' +
          'a ticket enters once per list. An inventory of another event: 400.',
        security,
        params: ZIdParams,
        body: ZCheckinListRequest,
        response: { 201: ZCheckinList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createCheckinList(app.db, { eventId: request.params.id, input: toInput(request.body), actor: actorOf(request) })),
  )

  app.get(
    '/events/:id/checkin-lists',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admListCheckinLists',
        summary: "An event's check-in lists",
        description: 'Needs `adm.checkin.read`. Oldest first.',
        security,
        params: ZIdParams,
        querystring: ZPageQuery,
        response: { 200: ZCheckinListPage, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      if (!(await findEventById(app.db, request.params.id))) throw new AppError('not_found')
      const { rows, total } = await listRowsOfEvent(app.db, request.params.id, request.query)
      return { data: rows.map(toCheckinListView), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.get(
    '/checkin-lists/:id',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admGetCheckinList',
        summary: 'Read a check-in list',
        description: 'Needs `adm.checkin.read`.',
        security,
        params: ZIdParams,
        response: { 200: ZCheckinList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const list = await findList(app.db, request.params.id)
      if (!list) throw new AppError('not_found')
      return toCheckinListView(list)
    },
  )

  app.put(
    '/checkin-lists/:id',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admUpdateCheckinList',
        summary: 'Replace a check-in list’s settings',
        description:
          'Needs `adm.checkin.write`. Settings left out take their defaults, as on creation; the scans stay. A change of its inventories, ' +
          'variants or rules restarts its ticket feed: devices reading it get every ticket of the list again, with `reset: true`.',
        security,
        params: ZIdParams,
        body: ZCheckinListRequest,
        response: { 200: ZCheckinList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => updateCheckinList(app.db, { listId: request.params.id, input: toInput(request.body), actor: actorOf(request) }),
  )

  app.delete(
    '/checkin-lists/:id',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admDeleteCheckinList',
        summary: 'Delete a check-in list',
        description: 'Needs `adm.checkin.write`. Deletes it with its history of scans; devices scanning against it get `invalid` from then on.',
        security,
        params: ZIdParams,
        response: { 204: z.undefined().describe('Deleted'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteCheckinList(app.db, { listId: request.params.id, actor: actorOf(request) })
      return reply.code(204).send()
    },
  )

  app.get(
    '/checkin-lists/:id/status',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admGetCheckinStatus',
        summary: 'How many are in',
        description:
          'Needs `adm.checkin.read`. Valid tickets of the list, checked in and inside now, in all and per inventory and variant; ' +
          '`date` counts only the inventories of that date.',
        security,
        params: ZIdParams,
        querystring: ZStatusQuery,
        response: { 200: ZCheckinStatus, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getListStatusById(app.db, request.params.id, request.query.date),
  )

  app.get(
    '/checkin-lists/:id/checkins',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admListCheckins',
        summary: 'The scans of a check-in list',
        description:
          'Needs `adm.checkin.read`. Every scan, refused ones too, newest first; filter by ticket `identifier` and by `successful`. ' +
          'Forced scans (uploaded from offline gates) show `forced: true` and the reason they overrode.',
        security,
        params: ZIdParams,
        querystring: ZCheckinQuery,
        response: { 200: ZCheckinPage, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { data, total } = await listScans(app.db, {
        listId: request.params.id,
        identifier: request.query.identifier,
        successful: request.query.successful,
        page: request.query.page,
        limit: request.query.limit,
      })
      return { data, meta: pageMeta(request.query, data.length, total) }
    },
  )
}
