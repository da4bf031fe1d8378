import { createHash, randomUUID } from 'node:crypto'
import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError, type ErrorDetail } from '../../platform/errors.js'
import { type Ending, inOrder, type Executable, sqlStatement, transactionEndingWith } from '../../platform/db/transaction-ending-with.js'
import { type TicketStatus, ticketStatus } from '../orders/order-view.js'
import { webhookEventsStatement, type WebhookEventInput } from '../webhooks/webhook-events.js'
import type { checkins, ScanReason, ScanType } from './checkin.table.js'
import { markTicketsChangedQuery, type ScanState, toScanTicketView } from './list-tickets.repo.js'
import { deviceListRows, type ListRow } from './lists.repo.js'
import {
  insertScansQuery,
  type ListPlace,
  lockScannedTicketsQuery,
  type NonceAnswer,
  nonceAnswersQuery,
  placeKey,
  readNonceAnswers,
  readScannedTickets,
  readScanStates,
  type ScannedTicketRow,
  scanStatesQuery,
} from './scans.repo.js'
import { UNPAID_TICKET_STATUSES } from './sign-order-tickets.js'
import { isCurrentCode } from './ticket-code-payload.js'
import { looksSigned, type TicketCodes } from './ticket-codes.js'
import { type RedeemAnswer, type ScanTicketView, toCheckinView } from './views.js'

/*
 * A scan at the gate (docs/door.md): the rule that judges it, and the service that judges and
 * records one scan or a batch of them as a set. Its SQL is in scans.repo.ts; what "on the list"
 * and "inside" mean is written once in list-tickets.repo.ts.
 */

/** The device a scan comes from, as its token authenticated it. */
export type DeviceContext = Readonly<{ id: string; sellerId: string; eventIds: readonly string[] | null }>

export type Scan = {
  /** A ticket's identifier or its signed code. */
  code: string
  listIds: readonly string[]
  type: ScanType
  /** When the gate says it scanned it (an offline scan's own time). */
  scannedAt: Date
  /** When the server received it. */
  receivedAt: Date
  /** An offline scan uploaded later: recorded whatever the reason but `invalid` and `ambiguous`. */
  force: boolean
  nonce?: string | undefined
}

export type ScanFacts = {
  type: ScanType
  /** When the scan counts as made (`countsAt`). */
  at: Date
  ticket: { status: TicketStatus; opensAt: Date; closesAt: Date }
  list: { allowMultipleEntries: boolean; allowEntryAfterExit: boolean }
  /** The ticket's scans on the list that count so far. */
  state: ScanState
}

/**
 * Whether a ticket on its list may pass (null) or why not. A ticket of an order awaiting payment
 * or expired unpaid (docs/payments.md) is `unpaid`, in and out, whatever its time: an expired one is
 * voided too, and the holder is told to pay rather than that the ticket was cancelled. Exits are
 * always allowed for valid tickets. An entry must fall within the ticket's window (from 2 hours
 * before its doors, else from its date, until 06:00 of the next day in the seller's time zone:
 * WINDOW_COLUMNS, list-tickets.repo.ts), and is allowed on its first scan on the list; again only with `allow_multiple_entries`, or after an exit with `allow_entry_after_exit`.
 */
export function judgeScan({ type, at, ticket, list, state }: ScanFacts): ScanReason | null {
  if (UNPAID_TICKET_STATUSES.has(ticket.status)) return 'unpaid'
  if (ticket.status === 'voided') return 'voided'
  if (type === 'exit') return null
  if (at < ticket.opensAt || at >= ticket.closesAt) return 'invalid_time'
  if (!state.entered || list.allowMultipleEntries) return null
  if (list.allowEntryAfterExit && state.lastType === 'exit') return null
  return 'already_redeemed'
}

/**
 * When a scan counts as made: the earlier of the gate's time and the server's. A gate whose clock
 * runs fast cannot place a scan ahead of scans made after it, and so cannot decide who is inside.
 */
export const countsAt = (scan: Pick<Scan, 'scannedAt' | 'receivedAt'>) => new Date(Math.min(scan.scannedAt.getTime(), scan.receivedAt.getTime()))

/** The reasons a forced (offline) scan may override: not a code that names no ticket, nor one that fits several lists. */
export const overridable = (reason: ScanReason) => reason !== 'invalid' && reason !== 'ambiguous'

/** What a scan asked, for telling a retry (same nonce, same request) from a reused nonce. */
const requestHash = (scan: Scan) =>
  createHash('sha256')
    .update(JSON.stringify([scan.code, [...scan.listIds].sort(), scan.type]))
    .digest('base64url')

/** How much of an unknown code a refused scan keeps. */
const MAX_KEPT_CODE = 128

/** An unknown code as its scan keeps it: its first characters, cut at a whole one (half an emoji cannot be stored). */
const keptCode = (code: string) => {
  const kept = code.slice(0, MAX_KEPT_CODE)
  return /[\uD800-\uDBFF]$/.test(kept) ? kept.slice(0, -1) : kept
}

/** A concurrent scan of the same device and nonce committed first: judge again, and its answer is the answer. */
class NonceTaken extends Error {}

/**
 * A scan of a batch that is not valid on its own (no nonce, a code over 2,048 characters or with
 * control characters, a `scanned_at` that is not a date-time): what is wrong, at paths from the scan.
 */
export type InvalidScan = { invalid: ErrorDetail[] }

const isScan = (entry: Scan | InvalidScan): entry is Scan => !('invalid' in entry)

/**
 * Judges and records one scan (`POST /redeem`). A list the device cannot see is 404, naming it.
 * A nonce the device used before answers the first answer again and records nothing; with
 * another request it is 409 `idempotency_conflict`.
 */
export async function scanTicket(db: Db, codes: TicketCodes, device: DeviceContext, scan: Scan): Promise<RedeemAnswer> {
  const lists = await visibleLists(db, device, [scan])
  const unseen = unseenLists(scan, lists)
  if (unseen.length > 0) throw new AppError('not_found', { message: 'A check-in list was not found', details: unseen })
  const [answer] = await scanTickets(db, codes, device, [scan], lists)
  if (answer === 'nonce_conflict') throw new AppError('idempotency_conflict', { message: 'This nonce was already used by this device for another scan' })
  return answer!
}

/**
 * Judges and records a batch of scans (`POST /redeem/batch`) as a set, each answered as if the
 * scans had come one by one in this order. One scan never holds up the others (an offline queue
 * must never be stuck behind it): a scan that is not valid on its own, or that names a list the
 * device cannot see (unknown, deleted since, another seller's or event's), is answered
 * `invalid_scan` with what is wrong and recorded nowhere, so its nonce stays free; a reused nonce
 * with another request answers `nonce_conflict` and records nothing.
 */
export async function scanBatch(db: Db, codes: TicketCodes, device: DeviceContext, entries: readonly (Scan | InvalidScan)[]): Promise<RedeemAnswer[]> {
  const lists = await visibleLists(db, device, entries.filter(isScan))
  const checked = entries.map((entry): Scan | InvalidScan => {
    if (!isScan(entry)) return entry
    const unseen = unseenLists(entry, lists)
    return unseen.length > 0 ? { invalid: unseen } : entry
  })
  const valid = checked.filter(isScan)
  const answers = valid.length > 0 ? await scanTickets(db, codes, device, valid, lists) : []
  let next = 0
  return checked.map((entry, n) => {
    if (!isScan(entry)) return invalidScanAnswer(entry.invalid.map((detail) => underScan(n, detail)))
    const answer = answers[next++]!
    return answer === 'nonce_conflict' ? refusedAnswer('nonce_conflict') : answer
  })
}

const refusedAnswer = (reason: 'nonce_conflict' | 'invalid_scan'): RedeemAnswer => ({
  status: 'refused',
  reason,
  attention: false,
  ticket: null,
  list_id: null,
  checkin: null,
})

/** A detail at a path from a scan, at its path from the batch's body. */
const underScan = (n: number, detail: ErrorDetail): ErrorDetail => ({ ...detail, path: detail.path ? `scans.${n}.${detail.path}` : `scans.${n}` })

const invalidScanAnswer = (details: ErrorDetail[]): RedeemAnswer => ({ ...refusedAnswer('invalid_scan'), details })

/**
 * The scans' codes verified, and then one transaction in two round trips on PostgreSQL: BEGIN,
 * the tickets' locks (in one order), the device's earlier answers for the nonces and the tickets'
 * places on the lists leave together; the scans, the tickets' change marks and the webhook events
 * leave with the COMMIT. The row locks give gates scanning one ticket at once one `ok`. Two uploads
 * with one nonce at once: the second's insert breaks the unique key, its transaction rolls back,
 * and it is judged again, answering the first's answer. Every list the scans name is in `lists`.
 */
async function scanTickets(
  db: Db,
  codes: TicketCodes,
  device: DeviceContext,
  scans: readonly Scan[],
  lists: ReadonlyMap<string, ListRow>,
): Promise<(RedeemAnswer | 'nonce_conflict')[]> {
  const named = await Promise.all(scans.map((scan) => namedTicket(codes, device.sellerId, scan.code)))
  const identifiers = named.map((name) => name?.identifier ?? null)
  const known = [...new Set(identifiers.filter((id): id is string => id !== null))]
  const nonces = [...new Set(scans.flatMap((scan) => (scan.nonce === undefined ? [] : [scan.nonce])))]
  const listIds = [...new Set(scans.flatMap((scan) => scan.listIds))]
  for (let attempt = 1; ; attempt++) {
    try {
      const { result } = await transactionEndingWith(db, async (tx) => {
        const [locked, answered, places] = await inOrder(
          tx,
          sqlStatement(tx, lockScannedTicketsQuery(device.sellerId, device.eventIds, known)),
          sqlStatement(tx, nonceAnswersQuery(device.id, nonces)),
          sqlStatement(tx, scanStatesQuery(device.sellerId, device.eventIds, known, listIds)),
        )
        const judged = judgeAll(device, scans, named, lists, {
          tickets: readScannedTickets(rowsOf(locked)),
          answered: readNonceAnswers(rowsOf(answered)),
          places: readScanStates(rowsOf(places)),
        })
        return recording(tx, device, judged)
      })
      return result
    } catch (error) {
      if (!(error instanceof NonceTaken) || attempt === 3) throw error
    }
  }
}

/** What a scanned code names: a ticket's identifier, and for a signed code the version it was signed with (`n`). */
type NamedTicket = { identifier: string; codeVersion: number | null }

/** The ticket a scanned code names: a signed code that verifies, or an identifier as typed; null: a signed code that does not verify. */
async function namedTicket(codes: TicketCodes, sellerId: string, code: string): Promise<NamedTicket | null> {
  if (!looksSigned(code)) return { identifier: code, codeVersion: null }
  const claims = await codes.verify(sellerId, code)
  return claims ? { identifier: claims.tid, codeVersion: claims.n ?? 0 } : null
}

/**
 * The ticket a code names, as the gate may admit it: none when it was given away (its identifier
 * and codes are revoked) or when the code is older than the ticket's (a holder change or re-issue
 * signed a new one): either is refused as `invalid` (docs/transfers.md).
 */
function admissible(ticket: ScannedTicketRow | undefined, name: NamedTicket | null): ScannedTicketRow | undefined {
  if (!ticket || !name || ticket.transferred) return undefined
  return name.codeVersion === null || isCurrentCode({ n: name.codeVersion }, ticket.code_version) ? ticket : undefined
}

const rowsOf = (answer: unknown) => (answer as { rows: Record<string, unknown>[] }).rows

/** The lists the scans name that the device can see (of its seller, on its events), by id. */
async function visibleLists(db: Db, device: DeviceContext, scans: readonly Scan[]): Promise<Map<string, ListRow>> {
  const named = [...new Set(scans.flatMap((scan) => scan.listIds))]
  if (named.length === 0) return new Map()
  return new Map((await deviceListRows(db, device.sellerId, device.eventIds, named)).map((list) => [list.id, list]))
}

/** Where a scan names a list the device cannot see (unknown, deleted, another seller's, another event's), at paths from the scan. */
const unseenLists = (scan: Scan, lists: ReadonlyMap<string, ListRow>): ErrorDetail[] =>
  scan.listIds.flatMap((id, m) => (lists.has(id) ? [] : [{ path: `list_ids.${m}`, message: 'is not a list of this device' }]))

type Read = { tickets: Map<string, ScannedTicketRow>; answered: Map<string, NonceAnswer>; places: Map<string, ListPlace> }

type NewScan = typeof checkins.$inferInsert

/** The answers, in order, and what to record: the new scans, the tickets they change, the events they raise. */
type Judged = { answers: (RedeemAnswer | 'nonce_conflict')[]; records: NewScan[]; changed: Set<string>; events: WebhookEventInput[] }

const NOTHING_YET: ScanState = { entered: false, lastType: null, lastAt: null }

/**
 * Judges the scans one after the other, as if each came alone: a scan sees the scans of the batch
 * before it, through the places kept here. A nonce answered before (in the database or earlier in
 * the batch) answers that answer again, or `nonce_conflict` for another request.
 */
function judgeAll(
  device: DeviceContext,
  scans: readonly Scan[],
  named: readonly (NamedTicket | null)[],
  lists: ReadonlyMap<string, ListRow>,
  read: Read,
): Judged {
  const judged: Judged = { answers: [], records: [], changed: new Set(), events: [] }
  const inBatch = new Map<string, NonceAnswer>()
  scans.forEach((scan, n) => {
    const hash = requestHash(scan)
    const name = named[n] ?? null
    const ticket = admissible(name ? read.tickets.get(name.identifier) : undefined, name)
    const earlier = scan.nonce === undefined ? undefined : (inBatch.get(scan.nonce) ?? read.answered.get(scan.nonce))
    if (earlier) {
      // A scan recorded before the nonce was compared (no hash kept) is taken to be the same request.
      const same = earlier.requestSha256 === null || earlier.requestSha256 === hash
      judged.answers.push(same ? completed(earlier.answer as RedeemAnswer, ticket) : 'nonce_conflict')
      return
    }
    const answer = judgeOne(
      device,
      scan,
      hash,
      ticket,
      scan.listIds.map((id) => lists.get(id)!),
      read.places,
      judged,
    )
    if (scan.nonce !== undefined) inBatch.set(scan.nonce, { requestSha256: hash, answer })
    judged.answers.push(answer)
  })
  return judged
}

/**
 * A recorded answer as it is answered again: one recorded before its ticket's view had fields it
 * has now (the show times, window and venue), retried by an upload across an upgrade,
 * gets them as the ticket has them now; what it recorded stays as recorded.
 */
function completed(answer: RedeemAnswer, ticket: ScannedTicketRow | undefined): RedeemAnswer {
  const recorded: Partial<ScanTicketView> | null = answer.ticket
  if (!recorded || !ticket || recorded.venue !== undefined) return answer
  return { ...answer, ticket: { ...toScanTicketView(ticket, NOTHING_YET), ...recorded } }
}

/** Judges one scan against the places as they stand, records it in `judged`, and moves the ticket's place. */
function judgeOne(
  device: DeviceContext,
  scan: Scan,
  hash: string,
  ticket: ScannedTicketRow | undefined,
  lists: readonly ListRow[],
  places: Map<string, ListPlace>,
  judged: Judged,
): RedeemAnswer {
  const placeOn = (list: ListRow) => (ticket && places.get(placeKey(ticket.id, list.id))) || { covers: false, state: NOTHING_YET }
  const matching = ticket ? lists.filter((list) => placeOn(list).covers) : []
  const at = countsAt(scan)
  let list: ListRow | undefined
  let reason: ScanReason | null
  if (!ticket) {
    reason = 'invalid'
    list = lists[0]
  } else if (matching.length > 1) {
    reason = 'ambiguous'
  } else {
    list = matching[0] ?? lists[0]!
    reason =
      matching.length === 0
        ? 'product'
        : judgeScan({
            type: scan.type,
            at,
            ticket: { status: ticketStatus(ticket.order_status, ticket.voided), opensAt: ticket.opens_at, closesAt: ticket.closes_at },
            list,
            state: placeOn(list).state,
          })
  }
  const forced = scan.force && reason !== null && overridable(reason)
  const successful = reason === null || forced
  const before = list ? placeOn(list) : { covers: false, state: NOTHING_YET }
  const state = successful ? moved(before.state, scan.type, at) : before.state
  if (ticket && list) places.set(placeKey(ticket.id, list.id), { covers: before.covers, state })

  const checkin = {
    id: randomUUID(),
    sellerId: device.sellerId,
    listId: list?.id ?? null,
    deviceId: device.id,
    ticketId: ticket?.id ?? null,
    identifier: ticket?.identifier ?? keptCode(scan.code),
    type: scan.type,
    successful,
    reason,
    forced,
    nonce: scan.nonce ?? null,
    requestSha256: hash,
    scannedAt: at,
    annulledAt: null,
    createdAt: scan.receivedAt,
  }
  const answer: RedeemAnswer = {
    status: successful ? 'ok' : 'refused',
    reason,
    attention: Boolean(ticket && reason !== 'invalid' && ticket.attention),
    ticket: ticket && reason !== 'invalid' ? toScanTicketView(ticket, state) : null,
    list_id: list?.id ?? null,
    checkin: toCheckinView(checkin),
  }
  judged.records.push({ ...checkin, answer })
  if (successful && ticket) judged.changed.add(ticket.id)
  // An entry of a ticket that was not inside: a forced re-entry of one already in raises none.
  if (successful && ticket && scan.type === 'entry' && before.state.lastType !== 'entry') {
    judged.events.push({
      type: 'ticket.checked_in',
      data: {
        identifier: ticket.identifier,
        order_id: ticket.order_id,
        list_id: checkin.listId,
        device_id: device.id,
        type: scan.type,
        forced,
        scanned_at: at.toISOString(),
      },
      orderingKey: ticket.order_id,
    })
  }
  return answer
}

/** A ticket's standing after a scan that counts: entered once it entered; inside or out as its latest scan says. */
function moved(state: ScanState, type: ScanType, at: Date): ScanState {
  const latest = !state.lastAt || at >= state.lastAt
  return {
    entered: state.entered || type === 'entry',
    lastType: latest ? type : state.lastType,
    lastAt: latest ? at : state.lastAt,
  }
}

/** Ends the transaction with what the judged scans record; nothing new to record: no statement at all. */
function recording(tx: Db, device: DeviceContext, judged: Judged): Ending<(RedeemAnswer | 'nonce_conflict')[], void> {
  if (judged.records.length === 0) return { result: judged.answers }
  const alongside: Executable<unknown>[] = []
  if (judged.changed.size > 0) alongside.push(sqlStatement(tx, markTicketsChangedQuery([...judged.changed])))
  if (judged.events.length > 0) alongside.push(sqlStatement(tx, webhookEventsStatement(device.sellerId, judged.events)))
  return {
    result: judged.answers,
    alongside,
    last: {
      query: insertScansQuery(tx, judged.records),
      read: () => undefined,
      explain: (error) => (isUniqueViolation(error, 'checkins_device_nonce_key') ? new NonceTaken() : error),
    },
  }
}
