import { z } from 'zod'
import { ANSWER_REASONS, SCAN_REASONS, SCAN_TYPES } from '../domain/checkin/checkin.table.js'
import type { InvalidScan } from '../domain/checkin/scan-tickets.js'
import { SCAN_TICKET_STATUSES } from '../domain/orders/order-view.js'
import type { ErrorDetail } from '../platform/errors.js'
import { pageOf, ZDate, ZDateInput, ZInstant, ZInstantInput, ZPageQuery } from '../platform/http/schemas.js'
import { ZSeat } from '../storefront/baskets.schemas.js'
import { showTimeFields, ZVenue } from '../storefront/catalog.schemas.js'

/** How many scans one offline upload may carry. */
export const MAX_BATCH = 1000

export const ZDevice = z
  .object({
    id: z.uuid(),
    seller_id: z.uuid(),
    name: z.string(),
    event_ids: z.array(z.uuid()).nullable().describe('The events it may scan; null: every event of the seller'),
    paired_at: ZInstant.nullable(),
    last_seen_at: ZInstant.nullable(),
    revoked_at: ZInstant.nullable(),
    created_at: ZInstant,
  })
  .meta({ id: 'Device' })

export const ZCreateDeviceRequest = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    event_ids: z.array(z.uuid()).min(1).max(100).nullable().optional().describe('Events of the seller it may scan; absent or null: every event'),
  })
  .meta({ id: 'CreateDeviceRequest' })

export const ZCreatedDevice = ZDevice.extend({
  pairing_code: z.string().describe('Shown this once; works once, until `pairing_expires_at` (24 h). Print it, or show it as a QR code'),
  pairing_url: z.url().describe('`<PUBLIC_BASE_URL>/scan/#pair=<pairing_code>`: opened on a phone, the scanner page pairs at once'),
  pairing_expires_at: ZInstant,
}).meta({ id: 'CreatedDevice' })

export const ZDeviceList = pageOf(ZDevice).meta({ id: 'DeviceList' })

export const ZPairRequest = z
  .strictObject({
    pairing_code: z.string().min(1).max(64).describe('As printed; case, spaces and dashes do not matter'),
    hardware: z.string().max(200).optional(),
    software: z.string().max(200).optional(),
  })
  .meta({ id: 'PairRequest' })

export const ZPairResponse = z
  .object({ device: ZDevice, token: z.string().describe('Shown this once: send it as `Authorization: Device <token>`') })
  .meta({ id: 'PairResponse' })

const listSettings = {
  name: z.string().trim().min(1).max(100),
  inventory_ids: z.array(z.uuid()).min(1).max(200).nullable().optional().describe('Inventories of the event it admits; absent or null: all'),
  variants: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(100)
    .nullable()
    .optional()
    .describe('Variant names it admits; absent or null: all, and tickets without a variant'),
  allow_multiple_entries: z.boolean().optional().describe('A ticket may enter again and again (default false)'),
  allow_entry_after_exit: z.boolean().optional().describe('A ticket that went out may enter again (default true)'),
}

export const ZCheckinListRequest = z.strictObject(listSettings).meta({ id: 'CheckinListRequest' })

export const ZCheckinList = z
  .object({
    id: z.uuid(),
    event_id: z.uuid(),
    name: z.string(),
    inventory_ids: z.array(z.uuid()).nullable(),
    variants: z.array(z.string()).nullable(),
    allow_multiple_entries: z.boolean(),
    allow_entry_after_exit: z.boolean(),
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'CheckinList' })

export const ZCheckinListPage = pageOf(ZCheckinList).meta({ id: 'CheckinListPage' })

export const ZCheckin = z
  .object({
    id: z.uuid(),
    list_id: z.uuid().nullable().describe('Null when the scan named none of the device’s lists, or fitted several'),
    device_id: z.uuid(),
    identifier: z.string().describe('The ticket’s identifier; for an `invalid` scan, what was presented (at most 128 characters)'),
    type: z.enum(SCAN_TYPES),
    successful: z.boolean(),
    reason: z.enum(SCAN_REASONS).nullable().describe('Why it was refused; for a forced scan, what it overrode'),
    forced: z.boolean(),
    nonce: z.string().nullable(),
    scanned_at: ZInstant.describe('When it counts as scanned: the earlier of the gate’s own time and when the server received it'),
    annulled_at: ZInstant.nullable().describe('Taken back by its device (POST /chk/v1/annul): it no longer counts'),
    created_at: ZInstant,
  })
  .meta({ id: 'Checkin' })

export const ZCheckinPage = pageOf(ZCheckin).meta({ id: 'CheckinPage' })

export const ZCheckinQuery = ZPageQuery.extend({
  identifier: z.string().min(1).max(128).optional(),
  successful: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true')),
})

const counts = { tickets: z.number().int(), checked_in: z.number().int() }

export const ZStatusQuery = z.object({ date: ZDateInput.optional().describe('Count only the inventories of this date') })

export const ZCheckinStatus = z
  .object({
    list_id: z.uuid(),
    ...counts,
    inside: z.number().int().describe('Entered and not gone out since'),
    inventories: z.array(
      z.object({
        inventory_id: z.uuid(),
        name: z.string(),
        date: ZDate,
        ...counts,
        variants: z.array(z.object({ name: z.string(), ...counts })),
      }),
    ),
  })
  .meta({ id: 'CheckinStatus' })

export const ZScanTicket = z
  .object({
    identifier: z.string(),
    order_id: z.uuid(),
    event_id: z.uuid(),
    inventory_id: z.uuid(),
    date: ZDate.describe('Its inventory’s current date: re-dating an inventory moves its tickets'),
    time: showTimeFields.time.describe("When its show starts on `date`, `HH:MM` on the seller's clock, as its inventory says now; null: not said"),
    doors_time: showTimeFields.doors_time.describe(
      "When the doors open on `date`, `HH:MM` on the seller's clock, as its inventory says now; null: not said. It opens the window of entry",
    ),
    venue: ZVenue.nullable().describe(
      'Where its event takes place; null: not said. The feed sends it as it was when the ticket last changed (an edit of the venue alone ' +
        'resends nothing): GET /chk/v1/lists carries each event’s current one',
    ),
    entry_opens_at: ZInstant.describe(
      "Its window of entry, computed by the server in the seller's time zone: from 2 hours before `doors_time` on `date` (from 00:00 of `date` " +
        'without it). An entry before it is refused `invalid_time`; an offline gate judges by these two instants as the server does',
    ),
    entry_closes_at: ZInstant.describe(
      'The end of its window of entry: 06:00 of the day after `date`, in the seller’s time zone (late shows end after midnight)',
    ),
    name: z.string().describe('The inventory’s name'),
    variant: z.string().nullable(),
    seat: ZSeat.nullable().describe('Reserved seating: the seat it sits in; null: an unseated inventory'),
    status: z
      .enum(SCAN_TICKET_STATUSES)
      .describe(
        '`voided`: cancelled or refunded, refused as `voided`; `pending`: its order awaits payment, `expired`: its order was not paid in time ' +
          'both refused as `unpaid` (they have no signed code, but a gate may be given their identifier); a paid order’s ' +
          'tickets come again in the feed, `valid`; `revoked`: given to someone else (a transfer), this identifier and every code of it ' +
          'are dead, refused as `invalid`: a gate offline drops it (the recipient’s ticket comes with its own identifier)',
      ),
    code_version: z
      .number()
      .int()
      .describe(
        'The version of its only valid code: a signed code whose `n` (absent: 0) is not this modulo 256 is an older one (a holder change, ' +
          'a re-issue), refused as `invalid`',
      ),
    holder: z.object({ name: z.string() }).nullable(),
    checked_in: z.boolean().describe('Entered on this list (a successful entry that was not annulled)'),
    inside: z.boolean().describe('Inside on this list now: its latest scan there that counts is an entry'),
    last_checkin_at: ZInstant.nullable(),
    attention: z.boolean().describe('Its inventory or variant asks the gate to check something, e.g. proof of a half-price right'),
  })
  .meta({ id: 'ScanTicket' })

/** A control character (C0, DEL, C1) or a lone UTF-16 surrogate: nothing a scanner reads from a QR or a keyboard. */
const unprintable = (text: string) => /\p{Cc}/u.test(text) || !text.isWellFormed()

const printable = (schema: z.ZodString) => schema.refine((text) => !unprintable(text), 'must not contain control characters')

const scanFields = {
  code: printable(z.string().min(1).max(2048)).describe('A ticket’s identifier, or its signed `code` (the QR); no control characters'),
  list_ids: z.array(z.uuid()).min(1).max(50).describe('The lists this gate admits to'),
  type: z.enum(SCAN_TYPES).default('entry'),
  scanned_at: ZInstantInput.optional().describe(
    'When the gate scanned it (an offline scan’s own time); default now. It counts as the earlier of this and when the server received it: ' +
      'a time in the future counts as received',
  ),
}

const NONCE = printable(z.string().min(1).max(64))

export const ZRedeemRequest = z
  .strictObject({
    ...scanFields,
    force: z
      .literal(false)
      .optional()
      .describe('Only in a batch upload: an online scan is never forced')
      .transform(() => false),
    nonce: NONCE.optional().describe(
      'Makes a retry safe: the same device and nonce answer the first answer again; with another code, list or type: 409 `idempotency_conflict`',
    ),
  })
  .meta({ id: 'RedeemRequest' })

export const ZBatchScan = z
  .strictObject({
    ...scanFields,
    force: z
      .boolean()
      .default(false)
      .describe('An offline scan uploaded later: recorded whatever the reason but `invalid` or `ambiguous`, with `forced: true`, answered `ok`'),
    nonce: NONCE.describe('Required: the same device and nonce answer the first answer again; with another code, list or type: `nonce_conflict`'),
  })
  .meta({ id: 'BatchScan' })

export type TBatchScan = z.output<typeof ZBatchScan>

/** Zod's issues as the error envelope's details, at paths from the scan (one per unknown field, as the error handler writes them). */
const detailsOf = (issues: readonly z.core.$ZodIssue[]): ErrorDetail[] =>
  issues.flatMap((issue) => {
    const path = issue.path.map(String)
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: 'is not a known field' }))
    return [{ path: path.join('.'), message: issue.message }]
  })

/**
 * A scan of a batch as the route receives it: a BatchScan, or, when it is not one, what is
 * wrong with it, so that one bad scan is answered in its place instead of refusing the upload
 * (docs/door.md). The document shows a BatchScan: the fallback is computed from the failure, and a
 * computed fallback leaves the JSON Schema the inner schema's. The cast states the real output.
 */
export const ZBatchScanEntry = ZBatchScan.catch((ctx) => ({ invalid: detailsOf(ctx.error.issues) }) as unknown as TBatchScan) as unknown as z.ZodType<
  TBatchScan | InvalidScan,
  z.input<typeof ZBatchScan>
>

export const ZRedeemAnswer = z
  .object({
    status: z.enum(['ok', 'refused']),
    reason: z.enum(ANSWER_REASONS).nullable(),
    attention: z.boolean().describe('Check something before letting the holder in (the ticket’s `attention`)'),
    ticket: ZScanTicket.nullable(),
    list_id: z.uuid().nullable(),
    checkin: ZCheckin.nullable(),
    details: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('`invalid_scan` only: what is wrong with the scan, at paths from the request body (`scans.3.code`)'),
  })
  .meta({ id: 'RedeemAnswer' })

export const ZRedeemBatchRequest = z.strictObject({ scans: z.array(ZBatchScanEntry).min(1).max(MAX_BATCH) }).meta({ id: 'RedeemBatchRequest' })

export const ZRedeemBatchResponse = z.object({ results: z.array(ZRedeemAnswer) }).meta({ id: 'RedeemBatchResponse' })

export const ZAnnulRequest = z.strictObject({ list_id: z.uuid(), nonce: z.string().min(1).max(64) }).meta({ id: 'AnnulRequest' })

export const ZDeviceCheckinList = ZCheckinList.extend({
  event: z.object({
    title: z.string(),
    first_date: ZDate.nullable().describe('Its first inventory’s date'),
    last_date: ZDate.nullable().describe('Its last inventory’s date'),
    venue: ZVenue.nullable().describe('Where it takes place, for the gate to show; null: not said'),
  }),
}).meta({ id: 'DeviceCheckinList' })

export const ZDeviceLists = z.object({ data: z.array(ZDeviceCheckinList) }).meta({ id: 'DeviceCheckinLists' })

export const ZSearchQuery = z.object({ list_id: z.uuid(), q: z.string().trim().min(3).max(100) })

export const ZScanTickets = z.object({ data: z.array(ZScanTicket) }).meta({ id: 'ScanTickets' })

export const ZListParams = z.object({ id: z.uuid() })

export const ZFeedQuery = z.object({
  cursor: z.string().min(1).max(200).optional().describe('`next_cursor` of the previous page; absent: from the start'),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
})

export const ZTicketFeed = z
  .object({
    data: z.array(ZScanTicket),
    next_cursor: z.string().describe('Ask with it for what changes next'),
    has_more: z.boolean().describe('More changes are waiting: ask again at once'),
    reset: z
      .boolean()
      .describe('This page starts the list over (no cursor, or the list changed since the cursor): drop what you kept of it and keep what comes from here'),
  })
  .meta({ id: 'TicketFeed' })

export const ZSigningKeys = z
  .object({
    keys: z.array(
      z.object({ kid: z.string(), kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), active: z.boolean() }).meta({ id: 'SigningKey' }),
    ),
  })
  .meta({ id: 'SigningKeys' })

/** A seller's signing key in the back office: the public JWK, and its life. */
export const ZTicketKey = z
  .object({
    kid: z.string(),
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string(),
    active: z.boolean().describe('Signs the tickets issued from now on; exactly one key of a seller is active'),
    legacy: z.boolean().describe('The key derived from `JWT_SECRET` before keys were stored: it signs the tickets issued then, as it always did'),
    created_at: ZInstant,
    retired_at: ZInstant.nullable().describe('Set once retired: it verifies nothing from then on'),
  })
  .meta({ id: 'TicketKey' })

export const ZRetiredTicketKey = ZTicketKey.extend({
  resigned_tickets: z.number().int().describe('Valid tickets that were signed by it and are now signed by the active key (their codes changed)'),
}).meta({ id: 'RetiredTicketKey' })

export const ZTicketKeyList = pageOf(ZTicketKey).meta({ id: 'TicketKeyList' })

export const ZTicketKeyParams = z.object({ id: z.uuid(), kid: z.string().min(1).max(64) })
