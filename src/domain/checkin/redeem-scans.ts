import { randomUUID } from 'node:crypto'
import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { type Ending, inOrder, sqlStatement, transactionEndingWith } from '../../platform/db/transaction-ending-with.js'
import { webhookEventsStatement } from '../webhooks/webhook-events.js'
import type { ScanReason, ScanType } from './checkin.table.js'
import {
  answerForNonce,
  insertCheckinQuery,
  lockScanTicketQuery,
  markTicketChangedQuery,
  nonceAnswerQuery,
  readScanStates,
  readScanTicket,
  scanStatesQuery,
  toScanTicketView,
  type ScanState,
  type ScanTicketRow,
} from './checkins.repo.js'
import { deviceListRows, type ListRow } from './lists.repo.js'
import { judgeScan, listCovers, overridable } from './scan-rules.js'
import { looksSigned, type TicketCodes } from './ticket-codes.js'
import { toCheckinView, type RedeemAnswer } from './views.js'

/** The device a scan comes from, as its token authenticated it. */
export type DeviceContext = Readonly<{ id: string; sellerId: string; eventIds: readonly string[] | null }>

export type Scan = {
  /** A ticket's identifier or its signed code. */
  code: string
  listIds: readonly string[]
  type: ScanType
  /** When the gate scanned it (an offline scan's own time). */
  scannedAt: Date
  force: boolean
  nonce?: string | undefined
}

/** How much of an unknown code a refused scan keeps. */
const MAX_KEPT_CODE = 128

/** A concurrent scan of the same device and nonce won: its answer is the answer. */
class NonceTaken extends Error {}

/**
 * Judges and records one scan, in two round trips on PostgreSQL: BEGIN, the ticket's lock, the
 * device's earlier answer for the nonce and the ticket's standing on the lists leave together
 * (the server runs the last two once the lock is granted, so they read every scan committed
 * before); the check-in, the ticket's change mark and the webhook event leave with the COMMIT.
 * Every scan is kept, refused ones too. The ticket's row lock gives gates scanning one ticket at
 * once one `ok`. A nonce the device used before answers that first answer again and records
 * nothing; two scans with one nonce at once: the second's insert breaks the unique key, its
 * transaction rolls back, and it answers the first's answer.
 */
export async function redeemScan(db: Db, codes: TicketCodes, device: DeviceContext, scan: Scan, lists?: readonly ListRow[]): Promise<RedeemAnswer> {
  const identifier = looksSigned(scan.code) ? ((await codes.verify(device.sellerId, scan.code))?.tid ?? null) : scan.code
  const named = lists ?? (await deviceListRows(db, device.sellerId, device.eventIds, scan.listIds))
  try {
    const { result } = await transactionEndingWith(db, async (tx) => {
      const [locked, earlier, states] = await inOrder(
        tx,
        sqlStatement(tx, lockScanTicketQuery(device.sellerId, device.eventIds, identifier ?? '')),
        sqlStatement(tx, nonceAnswerQuery(device.id, scan.nonce)),
        sqlStatement(
          tx,
          scanStatesQuery(
            identifier ?? '',
            named.map((list) => list.id),
          ),
        ),
      )
      const answered = rowsOf(earlier)[0]?.answer
      if (answered) return { result: answered as RedeemAnswer }
      return judgeAndRecord(tx, device, scan, named, readScanTicket(rowsOf(locked)), readScanStates(rowsOf(states)))
    })
    return result
  } catch (error) {
    if (!(error instanceof NonceTaken)) throw error
    return (await answerForNonce(db, device.id, scan.nonce!)) as RedeemAnswer
  }
}

const rowsOf = (answer: unknown) => (answer as { rows: Record<string, unknown>[] }).rows

/**
 * Judges each scan in order, each in its own transaction: a batch cut short by a lost
 * connection or a killed server has recorded a prefix, and its retry with the same nonces
 * records the rest, each scan exactly once.
 */
export async function redeemBatch(db: Db, codes: TicketCodes, device: DeviceContext, scans: readonly Scan[]): Promise<RedeemAnswer[]> {
  const listsByIds = new Map<string, readonly ListRow[]>()
  const answers: RedeemAnswer[] = []
  for (const scan of scans) {
    const key = [...scan.listIds].sort().join(',')
    let lists = listsByIds.get(key)
    if (!lists) {
      lists = await deviceListRows(db, device.sellerId, device.eventIds, scan.listIds)
      listsByIds.set(key, lists)
    }
    answers.push(await redeemScan(db, codes, device, scan, lists))
  }
  return answers
}

const NOTHING_YET: ScanState = { entered: false, lastType: null, lastAt: null }

/** Decides the scan (scan-rules.ts) and ends the transaction with what it records. */
function judgeAndRecord(
  tx: Db,
  device: DeviceContext,
  scan: Scan,
  lists: readonly ListRow[],
  ticket: ScanTicketRow | undefined,
  states: ReadonlyMap<string, ScanState>,
): Ending<RedeemAnswer, void> {
  const matching = ticket ? lists.filter((list) => listCovers(list, ticket)) : []
  let list: ListRow | undefined
  let reason: ScanReason | null
  let state = NOTHING_YET
  if (!ticket || lists.length === 0) {
    reason = 'invalid'
    list = lists[0]
  } else if (matching.length > 1) {
    reason = 'ambiguous'
  } else {
    list = matching[0] ?? lists[0]!
    state = states.get(list.id) ?? NOTHING_YET
    reason =
      matching.length === 0
        ? 'product'
        : judgeScan({
            type: scan.type,
            scannedAt: scan.scannedAt,
            ticket: { voided: ticket.voided, opensAt: ticket.opens_at, closesAt: ticket.closes_at },
            list,
            state,
          })
  }
  const forced = scan.force && reason !== null && overridable(reason)
  const successful = reason === null || forced

  const checkin = {
    id: randomUUID(),
    sellerId: device.sellerId,
    listId: list?.id ?? null,
    deviceId: device.id,
    ticketId: ticket?.id ?? null,
    identifier: ticket?.identifier ?? scan.code.slice(0, MAX_KEPT_CODE),
    type: scan.type,
    successful,
    reason,
    forced,
    nonce: scan.nonce ?? null,
    scannedAt: scan.scannedAt,
    annulledAt: null,
    createdAt: new Date(),
  }
  const lastAt = successful && (!state.lastAt || scan.scannedAt > state.lastAt) ? scan.scannedAt : state.lastAt
  const answer: RedeemAnswer = {
    status: successful ? 'ok' : 'refused',
    reason,
    ticket: ticket && reason !== 'invalid' ? toScanTicketView(ticket, state.entered || (successful && scan.type === 'entry'), lastAt) : null,
    list_id: list?.id ?? null,
    checkin: toCheckinView(checkin),
  }
  const alongside = successful && ticket ? [sqlStatement(tx, markTicketChangedQuery(ticket.id))] : []
  if (successful && ticket && scan.type === 'entry') {
    const event = webhookEventsStatement(device.sellerId, [
      {
        type: 'ticket.checked_in',
        data: {
          identifier: ticket.identifier,
          order_id: ticket.order_id,
          list_id: checkin.listId,
          device_id: device.id,
          type: scan.type,
          forced,
          scanned_at: checkin.scannedAt.toISOString(),
        },
        orderingKey: ticket.order_id,
      },
    ])
    alongside.push(sqlStatement(tx, event))
  }
  return {
    result: answer,
    alongside,
    last: {
      query: insertCheckinQuery(tx, { ...checkin, answer }),
      read: () => undefined,
      explain: (error) => (isUniqueViolation(error, 'checkins_device_nonce_key') ? new NonceTaken() : error),
    },
  }
}
