import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { tickets } from '../orders/orders.table.js'
import { checkins } from './checkin.table.js'
import {
  coveredBy,
  type GateTicketRow,
  readState,
  type ScanState,
  type StandingColumns,
  standingColumns,
  TICKET_COLUMNS,
  TICKET_JOINS,
  readGateTicket,
} from './list-tickets.repo.js'

export type CheckinRow = typeof checkins.$inferSelect

/** A ticket as a scan judges it: its view's columns and its window of entry. */
export type ScannedTicketRow = GateTicketRow

/** The events a device may scan: `eventIds` null is every event. */
const onEvents = (eventIds: readonly string[] | null): SQL => (eventIds ? sql`and inv.event_id = any(${sql.param([...eventIds])}::uuid[])` : sql``)

/**
 * The seller's tickets with these identifiers, on the events given. One identifier (every online
 * scan) is compared as one value: its statement is prepared once per connection, and a generic
 * plan of `= any(array)` expects ten tickets and may start from the seller's orders instead of the
 * identifier's unique index (measured: every ticket of the seller read per scan while statistics lag).
 */
const scannedTickets = (sellerId: string, eventIds: readonly string[] | null, identifiers: readonly string[]) => {
  const named = identifiers.length === 1 ? sql`t.identifier = ${identifiers[0]}` : sql`t.identifier = any(${sql.param([...identifiers])}::text[])`
  return sql`${named} and inv.seller_id = ${sellerId}::uuid ${onEvents(eventIds)}`
}

/**
 * Locks the tickets of these identifiers of this seller, on the events given, in the order of
 * their ids, so that two batches locking some of the same tickets cannot deadlock. The row lock
 * is what makes gates scanning one ticket at once give one `ok`: the others wait here until the
 * first has committed its scan, and the statements sent behind this one (`nonceAnswersQuery`,
 * `scanStatesQuery`) then read it.
 */
export const lockScannedTicketsQuery = (sellerId: string, eventIds: readonly string[] | null, identifiers: readonly string[]): SQL => sql`
    select ${TICKET_COLUMNS}
    ${TICKET_JOINS}
    where ${scannedTickets(sellerId, eventIds, identifiers)}
    order by t.id
    for update of t`

export function readScannedTickets(rows: readonly Record<string, unknown>[]): Map<string, ScannedTicketRow> {
  const typed = rows as ScannedTicketRow[]
  return new Map(typed.map((row) => [row.identifier, readGateTicket(row)]))
}

/** What this device asked and was answered for these nonces. */
export const nonceAnswersQuery = (deviceId: string, nonces: readonly string[]): SQL =>
  sql`select nonce, request_sha256, answer from checkins where device_id = ${deviceId}::uuid and nonce = any(${sql.param([...nonces])}::text[])`

export type NonceAnswer = { requestSha256: string | null; answer: unknown }

export function readNonceAnswers(rows: readonly Record<string, unknown>[]): Map<string, NonceAnswer> {
  const typed = rows as { nonce: string; request_sha256: string | null; answer: unknown }[]
  return new Map(typed.map((row) => [row.nonce, { requestSha256: row.request_sha256, answer: row.answer }]))
}

/**
 * For each of these tickets and each list, whether the list admits it and where it stands on
 * it. Sent after the lock, so it reads every scan committed before the lock was granted.
 */
export const scanStatesQuery = (sellerId: string, eventIds: readonly string[] | null, identifiers: readonly string[], listIds: readonly string[]): SQL => sql`
    select t.id::text as ticket_id, l.id::text as list_id,
           ${coveredBy({ eventId: sql`l.event_id`, inventoryIds: sql`l.inventory_ids`, variants: sql`l.variants` })} as covers,
           ${standingColumns(sql`l.id`)}
    from tickets t
    join order_items oi on oi.id = t.order_item_id
    join inventories inv on inv.id = t.inventory_id
    join checkin_lists l on l.id = any(${sql.param([...listIds])}::uuid[])
    where ${scannedTickets(sellerId, eventIds, identifiers)}`

/** A ticket's place on a list: whether the list admits it, and its standing there. */
export type ListPlace = { covers: boolean; state: ScanState }

/** Places by `placeKey(ticket id, list id)`. */
export const placeKey = (ticketId: string, listId: string) => `${ticketId}:${listId}`

export function readScanStates(rows: readonly Record<string, unknown>[]): Map<string, ListPlace> {
  const typed = rows as (StandingColumns & { ticket_id: string; list_id: string; covers: boolean })[]
  return new Map(typed.map((row) => [placeKey(row.ticket_id, row.list_id), { covers: row.covers, state: readState(row) }]))
}

/**
 * Records scans; a nonce the device used already violates `checkins_device_nonce_key`. The rows
 * go as one array per column (`unnest`): a batch of a thousand is 14 parameters, not 16,000, so
 * neither this process nor the database spends its time on building and parsing one value each.
 * An insert from a select names every column of the table, in its order.
 */
export const insertScansQuery = (db: Db, rows: readonly (typeof checkins.$inferInsert)[]): SQL => {
  const column = <T>(pick: (row: (typeof rows)[number]) => T) => sql.param(rows.map(pick))
  return db
    .insert(checkins)
    .select(
      sql`select u.id, ${rows[0]!.sellerId}::uuid, u.list_id, ${rows[0]!.deviceId}::uuid, u.ticket_id, u.identifier, u.type, u.successful,
                 u.reason, u.forced, u.nonce, u.request_sha256, u.scanned_at, null, u.answer::jsonb, u.created_at
            from unnest(${column((r) => r.id)}::uuid[], ${column((r) => r.listId ?? null)}::uuid[], ${column((r) => r.ticketId ?? null)}::uuid[],
                        ${column((r) => r.identifier)}::text[], ${column((r) => r.type)}::text[], ${column((r) => r.successful)}::bool[],
                        ${column((r) => r.reason ?? null)}::text[], ${column((r) => r.forced ?? false)}::bool[], ${column((r) => r.nonce ?? null)}::text[],
                        ${column((r) => r.requestSha256 ?? null)}::text[], ${column((r) => r.scannedAt.toISOString())}::timestamptz[],
                        ${column((r) => JSON.stringify(r.answer))}::text[], ${column((r) => r.createdAt.toISOString())}::timestamptz[])
              as u(id, list_id, ticket_id, identifier, type, successful, reason, forced, nonce, request_sha256, scanned_at, answer, created_at)`,
    )
    .getSQL()
}

/** A list's scans, newest first, filtered by identifier and success. */
export async function listScanRows(
  db: Db,
  listId: string,
  filter: { identifier?: string | undefined; successful?: boolean | undefined },
  paging: Paging,
): Promise<Page<CheckinRow>> {
  const where = and(
    eq(checkins.listId, listId),
    filter.identifier === undefined ? undefined : eq(checkins.identifier, filter.identifier),
    filter.successful === undefined ? undefined : eq(checkins.successful, filter.successful),
  )
  const rows = await db.select().from(checkins).where(where).orderBy(desc(checkins.createdAt), desc(checkins.id)).limit(paging.limit).offset(offsetOf(paging))
  const [total] = await db.select({ n: count() }).from(checkins).where(where)
  return { rows, total: total?.n ?? 0 }
}

/** This device's successful scan on the list with this nonce, locked, with its ticket's order. */
export const lockOwnScan = async (db: Db, deviceId: string, listId: string, nonce: string) =>
  (
    await db
      .select({ scan: checkins, orderId: tickets.orderId })
      .from(checkins)
      .leftJoin(tickets, eq(tickets.id, checkins.ticketId))
      .where(and(eq(checkins.deviceId, deviceId), eq(checkins.listId, listId), eq(checkins.nonce, nonce), eq(checkins.successful, true)))
      .for('update', { of: checkins })
  )[0]

export const annulScanRow = async (db: Db, id: string) =>
  (
    await db
      .update(checkins)
      .set({ annulledAt: sql`coalesce(${checkins.annulledAt}, now())` })
      .where(eq(checkins.id, id))
      .returning()
  )[0]!
