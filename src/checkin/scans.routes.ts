import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { z } from 'zod'
import { annulCheckin } from '../domain/checkin/annul-checkin.js'
import { deviceListRows } from '../domain/checkin/lists.repo.js'
import { readTicketFeed, searchListTickets } from '../domain/checkin/read-lists.js'
import { redeemBatch, redeemScan, type Scan } from '../domain/checkin/redeem-scans.js'
import { toCheckinListView } from '../domain/checkin/views.js'
import { errorResponses } from '../platform/http/schemas.js'
import {
  ZAnnulRequest,
  ZCheckin,
  ZDeviceLists,
  ZFeedParams,
  ZFeedQuery,
  ZRedeemAnswer,
  ZRedeemBatchRequest,
  ZRedeemBatchResponse,
  ZRedeemRequest,
  ZScanTickets,
  ZSearchQuery,
  ZSigningKeys,
  ZTicketFeed,
} from './checkin.schemas.js'
import { deviceOf } from './device-auth.js'

const tags = ['checkin']
const security = [{ deviceToken: [] }]

const toScan = (body: z.infer<typeof ZRedeemRequest>): Scan => ({
  code: body.code,
  listIds: body.list_ids,
  type: body.type,
  scannedAt: body.scanned_at ? new Date(body.scanned_at) : new Date(),
  force: body.force,
  nonce: body.nonce,
})

const REASONS =
  '`invalid` (no ticket of this seller on the device’s events, or a signed code that does not verify), `voided`, `already_redeemed`, ' +
  '`product` (its inventory or variant is on none of the lists), `invalid_time` (an entry before its date or after 06:00 of the next day, ' +
  'seller’s time zone), `ambiguous` (on more than one of the lists).'

/** What a paired device does at the gate: its lists, scans, offline feed, search and the keys that verify codes. */
export const scanRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/lists',
    {
      schema: {
        tags,
        operationId: 'chkListLists',
        summary: 'The check-in lists of the device’s events',
        security,
        response: { 200: ZDeviceLists, ...errorResponses(401) },
      },
    },
    async (request) => {
      const device = deviceOf(request)
      return { data: (await deviceListRows(app.db, device.sellerId, device.eventIds)).map(toCheckinListView) }
    },
  )

  app.post(
    '/redeem',
    {
      schema: {
        tags,
        operationId: 'chkRedeem',
        summary: 'Scan a ticket',
        description:
          `Answers \`ok\` or \`refused\` with a reason: ${REASONS} Every scan is kept. Scans of one ticket at once, from any gates: ` +
          'exactly one `ok`. The same device and `nonce` answer the first answer again and record nothing. `scanned_at` more than ' +
          '5 minutes in the future: 400.',
        security,
        body: ZRedeemRequest,
        response: { 200: ZRedeemAnswer, ...errorResponses(400, 401) },
      },
    },
    async (request) => redeemScan(app.db, app.ticketCodes, deviceOf(request), toScan(request.body)),
  )

  app.post(
    '/redeem/batch',
    {
      schema: {
        tags,
        operationId: 'chkRedeemBatch',
        summary: 'Upload scans made offline',
        description:
          'Up to 1,000 scans, judged in order, each recorded on its own: a retry of an upload that was cut short, with the same ' +
          'nonces, records every scan exactly once. Offline scans are sent with their own `scanned_at` and `force: true`. ' +
          'Over 1,000 scans, or any scan that is not valid: 400, and nothing is recorded.',
        security,
        body: ZRedeemBatchRequest,
        response: { 200: ZRedeemBatchResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => ({ results: await redeemBatch(app.db, app.ticketCodes, deviceOf(request), request.body.scans.map(toScan)) }),
  )

  app.post(
    '/annul',
    {
      schema: {
        tags,
        operationId: 'chkAnnul',
        summary: 'Take back a scan made by mistake',
        description:
          'Undoes this device’s own successful scan on the list, named by its nonce, within 15 minutes: it stays in the history with ' +
          '`annulled_at` and no longer counts. Again: the same answer. Another device’s scan, a refused one, or too late: 404.',
        security,
        body: ZAnnulRequest,
        response: { 200: ZCheckin, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => annulCheckin(app.db, deviceOf(request), { listId: request.body.list_id, nonce: request.body.nonce }),
  )

  app.get(
    '/search',
    {
      schema: {
        tags,
        operationId: 'chkSearch',
        summary: 'Find tickets of a list',
        description: 'By identifier or order id prefix, or by the holder’s name or email (at least 3 characters); at most 50, by identifier.',
        security,
        querystring: ZSearchQuery,
        response: { 200: ZScanTickets, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => ({ data: await searchListTickets(app.db, deviceOf(request), { listId: request.query.list_id, q: request.query.q }) }),
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
          'voided, checked in or out), voided ones included. Keep a copy up to date with it and scan against it when the network is gone.',
        security,
        params: ZFeedParams,
        querystring: ZFeedQuery,
        response: { 200: ZTicketFeed, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => readTicketFeed(app.db, deviceOf(request), { listId: request.params.id, cursor: request.query.cursor, limit: request.query.limit }),
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
