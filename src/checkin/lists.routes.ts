import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { deviceList, listDeviceLists } from '../domain/checkin/device-lists.js'
import { getListStatus } from '../domain/checkin/list-status.js'
import { searchTickets } from '../domain/checkin/search-tickets.js'
import { readTicketFeed } from '../domain/checkin/ticket-feed.js'
import { errorResponses } from '../platform/http/schemas.js'
import {
  ZCheckinStatus,
  ZDeviceLists,
  ZFeedQuery,
  ZListParams,
  ZScanTickets,
  ZSearchQuery,
  ZSigningKeys,
  ZStatusQuery,
  ZTicketFeed,
} from './checkin.schemas.js'
import { deviceOf } from './device-auth.js'

const tags = ['checkin']
const security = [{ deviceToken: [] }]

/** What a gate reads: its lists, their counts, the offline feed, the search, and the keys that verify codes. */
export const listRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/lists',
    {
      schema: {
        tags,
        operationId: 'chkListLists',
        summary: 'The check-in lists of the device’s events',
        description: 'Each with its event’s title and first and last dates, so that lists of the same name can be told apart.',
        security,
        response: { 200: ZDeviceLists, ...errorResponses(401) },
      },
    },
    async (request) => ({ data: await listDeviceLists(app.db, deviceOf(request)) }),
  )

  app.get(
    '/lists/:id/status',
    {
      schema: {
        tags,
        operationId: 'chkGetListStatus',
        summary: 'How many are in',
        description:
          'Valid tickets of the list (not voided, nor of an unpaid order), checked in and inside now, in all and per inventory and variant; ' +
          '`date` counts only that date.',
        security,
        params: ZListParams,
        querystring: ZStatusQuery,
        response: { 200: ZCheckinStatus, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => getListStatus(app.db, await deviceList(app.db, deviceOf(request), request.params.id), request.query.date),
  )

  app.get(
    '/lists/:id/tickets',
    {
      schema: {
        tags,
        operationId: 'chkTicketFeed',
        summary: 'The list’s tickets, for scanning offline',
        description:
          'Without `cursor`, every ticket of the list; with the `next_cursor` of an earlier answer, the tickets changed since (issued, ' +
          'voided, paid, expired, re-dated, re-signed, checked in or out), voided ones included. Keep a copy up to date with it and scan ' +
          'against it when the network is gone. Tickets of an order awaiting payment come with `status: pending`, of one that expired ' +
          'unpaid with `expired`: refuse both as `unpaid` (they have no signed code; refuse their identifier when typed or searched). ' +
          'When the order is paid they come again, `valid`. When the list’s inventories, variants or rules change, the feed starts over ' +
          '(`reset: true`): drop the copy.',
        security,
        params: ZListParams,
        querystring: ZFeedQuery,
        response: { 200: ZTicketFeed, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => readTicketFeed(app.db, deviceOf(request), { listId: request.params.id, cursor: request.query.cursor, limit: request.query.limit }),
  )

  app.get(
    '/search',
    {
      schema: {
        tags,
        operationId: 'chkSearch',
        summary: 'Find tickets of a list',
        description:
          'By identifier or order id prefix, or by the holder’s name or email (at least 3 characters); at most 50, by identifier. Tickets of ' +
          'unpaid orders are found too, with `status` `pending` or `expired`: a scan of them answers `refused`, reason `unpaid`.',
        security,
        querystring: ZSearchQuery,
        response: { 200: ZScanTickets, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => ({ data: await searchTickets(app.db, deviceOf(request), { listId: request.query.list_id, q: request.query.q }) }),
  )

  app.get(
    '/keys',
    {
      schema: {
        tags,
        operationId: 'chkKeys',
        summary: 'The keys that verify tickets’ signed codes',
        description: 'The seller’s Ed25519 public keys as JWKs: verify a ticket’s `code` (compact JWS, `EdDSA`) offline with any JOSE library.',
        security,
        response: { 200: ZSigningKeys, ...errorResponses(401) },
      },
    },
    async (request) => ({ keys: await app.ticketCodes.publicKeys(deviceOf(request).sellerId) }),
  )
}
