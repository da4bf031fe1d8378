import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { annulScan } from '../domain/checkin/annul-scan.js'
import { type InvalidScan, type Scan, scanBatch, scanTicket } from '../domain/checkin/scan-tickets.js'
import { errorResponses } from '../platform/http/schemas.js'
import { ZAnnulRequest, ZCheckin, ZRedeemAnswer, ZRedeemBatchRequest, ZRedeemBatchResponse, ZRedeemRequest } from './checkin.schemas.js'
import { deviceOf } from './device-auth.js'

const tags = ['checkin']
const security = [{ deviceToken: [] }]

type ScanBody = { code: string; list_ids: string[]; type: Scan['type']; scanned_at?: string | undefined; force: boolean; nonce?: string | undefined }

const toScan = (body: ScanBody, receivedAt: Date): Scan => ({
  code: body.code,
  listIds: body.list_ids,
  type: body.type,
  scannedAt: body.scanned_at ? new Date(body.scanned_at) : receivedAt,
  receivedAt,
  force: body.force,
  nonce: body.nonce,
})

/** A batch's scan as received: a scan, or what is wrong with it (answered `invalid_scan` in its place). */
const toBatchScan = (entry: ScanBody | InvalidScan, receivedAt: Date): Scan | InvalidScan => ('invalid' in entry ? entry : toScan(entry, receivedAt))

const REASONS =
  '`invalid` (no ticket of this seller on the device’s events, or a signed code that does not verify), `voided`, `unpaid` (its order ' +
  'awaits payment or expired unpaid: a `pending` or `expired` ticket, in or out; judged before `invalid_time`), `already_redeemed`, ' +
  '`product` (its inventory or variant is on none of the lists), `invalid_time` (an entry outside the ticket’s window, `entry_opens_at` to ' +
  '`entry_closes_at`: from 2 hours before its `doors_time`, or from 00:00 of its date without one, until 06:00 of the next day, in the ' +
  'seller’s time zone), `ambiguous` (on more than one of the lists).'

const ORDER =
  'A scan counts as made at the earlier of its `scanned_at` and when the server received it, so a gate whose clock runs fast cannot ' +
  'place a scan ahead of later ones; whether a ticket is inside follows its scans in that order. `attention` asks the gate to check ' +
  'something (e.g. proof of a half-price right).'

/** A scan at the gate: one, a batch uploaded from offline, and taking one back. */
export const scanRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/redeem',
    {
      schema: {
        tags,
        operationId: 'chkRedeem',
        summary: 'Scan a ticket',
        description:
          `Answers \`ok\` or \`refused\` with a reason: ${REASONS} Every scan is kept. Scans of one ticket at once, from any gates: ` +
          `exactly one \`ok\`. ${ORDER} A \`scanned_at\` in the future is no error: the scan counts when received. The same device ` +
          'and `nonce` answer the first answer again and record nothing; the same nonce with another code, list or type: 409 ' +
          '`idempotency_conflict`. A scan that is not valid (a code with control characters, `force: true`: only batch uploads are ' +
          'forced): 400; a list the device cannot see: 404.',
        security,
        body: ZRedeemRequest,
        response: { 200: ZRedeemAnswer, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => scanTicket(app.db, app.ticketCodes, deviceOf(request), toScan(request.body, new Date())),
  )

  app.post(
    '/redeem/batch',
    {
      schema: {
        tags,
        operationId: 'chkRedeemBatch',
        summary: 'Upload scans made offline',
        description:
          'Up to 1,000 scans, judged as a set in one transaction, each answered as if the scans had come one by one in this order. ' +
          'Every scan needs a `nonce`: a retry of an upload, with the same nonces, answers the first answers again and records nothing ' +
          'twice; a nonce reused for another code, list or type answers `refused` with reason `nonce_conflict` and records nothing. ' +
          'Offline scans are sent with their own `scanned_at` and `force: true`: recorded as `ok` whatever the reason but `invalid` and ' +
          `\`ambiguous\`, with \`forced: true\` and the overridden reason; a forced re-entry of a ticket already inside sends no webhook. ${ORDER} ` +
          'Each scan is judged on its own, so an offline queue is never stuck behind one scan: a scan that is not valid on its own (no ' +
          '`nonce`, a `code` over 2,048 characters or with control characters, a `scanned_at` that is not a date-time, a `list_ids` entry ' +
          'the device cannot see: unknown, deleted since, another seller’s, an event the device is not limited to) is answered in its place ' +
          '`refused` with reason `invalid_scan` and `details`, and recorded nowhere (its nonce stays free); the others are judged and ' +
          'recorded as usual. A `scanned_at` in the future counts when received. Only a malformed body (not `{scans: [...]}`, or over ' +
          '1,000 scans) is 400, and then nothing is recorded.',
        security,
        body: ZRedeemBatchRequest,
        response: { 200: ZRedeemBatchResponse, ...errorResponses(400, 401) },
      },
      // A NUL or a lone surrogate in one scan makes that scan invalid_scan (its schema refuses them), not the upload.
      config: { bodyStringsBySchema: true },
    },
    async (request) => {
      const receivedAt = new Date()
      return {
        results: await scanBatch(
          app.db,
          app.ticketCodes,
          deviceOf(request),
          request.body.scans.map((entry) => toBatchScan(entry, receivedAt)),
        ),
      }
    },
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
          '`annulled_at` and no longer counts, and `ticket.checkin_annulled` is sent. Again: the same answer. Another device’s scan, a ' +
          'refused one, or too late: 404.',
        security,
        body: ZAnnulRequest,
        response: { 200: ZCheckin, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => annulScan(app.db, deviceOf(request), { listId: request.body.list_id, nonce: request.body.nonce }),
  )
}
