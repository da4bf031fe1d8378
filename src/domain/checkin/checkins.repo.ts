import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { checkins, type ScanType } from './checkin.table.js'
import type { ListRow } from './lists.repo.js'
import type { ScanTicketView } from './views.js'

export type CheckinRow = typeof checkins.$inferSelect

/** A ticket as the gates judge it (the columns its view shows, as read), with its window of entry in the seller's time zone. */
export type ScanTicketRow = Pick<ScanTicketView, 'identifier' | 'order_id' | 'event_id' | 'inventory_id' | 'date' | 'name' | 'variant'> & {
  id: string
  voided: boolean
  holder: string | null
  /** Entries are valid from the start of the ticket's date until 06:00 of the next day. */
  opens_at: Date
  closes_at: Date
}

/** A ticket's scans on one list that count: successful and not annulled. */
export type ScanState = { entered: boolean; lastType: ScanType | null; lastAt: Date | null }

const asDate = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)))

const TICKET_COLUMNS = sql`
  t.id, t.identifier, t.order_id, t.inventory_id, oi.event_id, oi.date::text as date, oi.name, oi.variant,
  t.voided_at is not null as voided, nullif(trim(c.first_name || ' ' || c.last_name), '') as holder`

const TICKET_JOINS = sql`
  from tickets t
  join orders o on o.id = t.order_id
  join order_items oi on oi.id = t.order_item_id
  join customers c on c.id = o.customer_id`

/** The events a device may scan: `eventIds` null is every event. */
const onEvents = (eventIds: readonly string[] | null): SQL => (eventIds ? sql`and oi.event_id = any(${sql.param([...eventIds])}::uuid[])` : sql``)

/**
 * Locks the ticket with this identifier of this seller, on the events given (rows: it, or
 * none). The row lock is what makes two gates scanning one ticket at once give one `ok`: the
 * second waits here until the first has committed its check-in, and the statements sent behind
 * this one (`nonceAnswerQuery`, `scanStatesQuery`) then read it.
 */
export const lockScanTicketQuery = (sellerId: string, eventIds: readonly string[] | null, identifier: string): SQL => sql`
    select ${TICKET_COLUMNS},
           (oi.date::timestamp at time zone s.timezone) as opens_at,
           ((oi.date + 1)::timestamp + interval '6 hours') at time zone s.timezone as closes_at
    ${TICKET_JOINS}
    join sellers s on s.id = o.seller_id
    where t.identifier = ${identifier} and o.seller_id = ${sellerId}::uuid ${onEvents(eventIds)}
    for update of t`

export function readScanTicket(rows: readonly Record<string, unknown>[]): ScanTicketRow | undefined {
  const row = rows[0] as (ScanTicketRow & { opens_at: unknown; closes_at: unknown }) | undefined
  return row && { ...row, opens_at: asDate(row.opens_at), closes_at: asDate(row.closes_at) }
}

/** The answer this device was given for this nonce (rows: it, or none). */
export const nonceAnswerQuery = (deviceId: string, nonce: string | undefined): SQL =>
  nonce === undefined
    ? sql`select null::jsonb as answer where false`
    : sql`select answer from checkins where device_id = ${deviceId}::uuid and nonce = ${nonce}`

/*
 * A ticket's standing on a list, the one definition every reading uses: of its scans on the list,
 * only the successful ones that were not annulled count. It has entered when one of them is an
 * entry; the latest of them (by when it was scanned) says whether it is inside. Scalar
 * subqueries, so that a listing evaluates them only for the rows it answers.
 */
const counting = (ticketId: SQL, listId: SQL) => sql`e.ticket_id = ${ticketId} and e.list_id = ${listId} and e.successful and e.annulled_at is null`
const enteredSql = (ticketId: SQL, listId: SQL) => sql`exists (select 1 from checkins e where ${counting(ticketId, listId)} and e.type = 'entry')`
const latestSql = (column: 'type' | 'scanned_at', ticketId: SQL, listId: SQL) =>
  sql`(select e.${sql.raw(column)} from checkins e where ${counting(ticketId, listId)} order by e.scanned_at desc, e.created_at desc limit 1)`

/**
 * For each list, the ticket's standing on it. Sent after the lock, so it reads every scan
 * committed before the lock was granted.
 */
export const scanStatesQuery = (identifier: string, listIds: readonly string[]): SQL => {
  const [ticket, list] = [sql`t.id`, sql`l.list_id`]
  return sql`
    select l.list_id::text as list_id, ${latestSql('type', ticket, list)} as type, ${latestSql('scanned_at', ticket, list)} as scanned_at,
           ${enteredSql(ticket, list)} as entered
      from unnest(${sql.param([...listIds])}::uuid[]) as l(list_id)
      join tickets t on t.identifier = ${identifier}`
}

export function readScanStates(rows: readonly Record<string, unknown>[]): Map<string, ScanState> {
  const typed = rows as { list_id: string; type: ScanType | null; scanned_at: unknown; entered: boolean }[]
  return new Map(typed.map((row) => [row.list_id, { entered: row.entered, lastType: row.type, lastAt: row.scanned_at ? asDate(row.scanned_at) : null }]))
}

/** The answer already given to this device for this nonce, if any. */
export async function answerForNonce(db: Db, deviceId: string, nonce: string): Promise<unknown> {
  const [row] = await db
    .select({ answer: checkins.answer })
    .from(checkins)
    .where(and(eq(checkins.deviceId, deviceId), eq(checkins.nonce, nonce)))
  return row?.answer
}

/** Records a scan; a nonce the device used already violates `checkins_device_nonce_key`. */
export const insertCheckinQuery = (db: Db, values: typeof checkins.$inferInsert): SQL => db.insert(checkins).values(values).getSQL()

/** Marks a ticket changed for the scanners' feed (a check-in, an annulment). */
export const markTicketChangedQuery = (ticketId: string): SQL => sql`update tickets set changed_xid = pg_current_xact_id() where id = ${ticketId}::uuid`

export const markTicketChanged = (db: Db, ticketId: string) => db.execute(markTicketChangedQuery(ticketId))

/**
 * The condition "this ticket is on the list": its inventory (those of the list, or every one of
 * its event: tickets are found through their inventory's index either way) and its variant.
 */
const onList = (list: ListRow): SQL => sql`
  ${list.inventoryIds ? sql`t.inventory_id = any(${sql.param(list.inventoryIds)}::uuid[])` : sql`t.inventory_id in (select id from inventories where event_id = ${list.eventId}::uuid)`}
  ${list.variants ? sql`and oi.variant = any(${sql.param(list.variants)}::text[])` : sql``}
  and oi.event_id = ${list.eventId}::uuid`

/** A ticket's standing on a list, as the columns `checked_in` and `last_checkin_at`. */
const standingOn = (list: ListRow): SQL => {
  const [ticket, listId] = [sql`t.id`, sql`${list.id}::uuid`]
  return sql`${enteredSql(ticket, listId)} as checked_in, ${latestSql('scanned_at', ticket, listId)} as last_checkin_at`
}

type StandingRow = ScanTicketRow & { checked_in: boolean; last_checkin_at: unknown }

export const toScanTicketView = (row: Omit<ScanTicketRow, 'opens_at' | 'closes_at'>, checkedIn: boolean, lastCheckinAt: Date | null): ScanTicketView => ({
  identifier: row.identifier,
  order_id: row.order_id,
  event_id: row.event_id,
  inventory_id: row.inventory_id,
  date: row.date,
  name: row.name,
  variant: row.variant,
  status: row.voided ? 'voided' : 'valid',
  holder: row.holder ? { name: row.holder } : null,
  checked_in: checkedIn,
  last_checkin_at: lastCheckinAt?.toISOString() ?? null,
})

const standingView = (row: StandingRow) => toScanTicketView(row, row.checked_in, row.last_checkin_at ? asDate(row.last_checkin_at) : null)

/** A position in the ticket feed: the transaction that last changed a ticket, then its id. */
export type FeedPosition = { xid: string; id: string }

/**
 * The list's tickets changed after `after`, in the order of the transactions that changed them.
 * Only changes of transactions older than every transaction still running are read: one that
 * commits later has a larger id than any read now, so a client that goes on from the last row
 * never misses a change (it may read a ticket twice, which only repeats its newest state).
 */
export async function ticketFeed(db: Db, list: ListRow, after: FeedPosition, limit: number): Promise<{ tickets: ScanTicketView[]; last: FeedPosition | null }> {
  const { rows } = await db.execute(sql`
    select ${TICKET_COLUMNS}, t.changed_xid::text as xid, ${standingOn(list)}
    ${TICKET_JOINS}
    where ${onList(list)}
      and (t.changed_xid, t.id) > (${after.xid}::xid8, ${after.id}::uuid)
      and t.changed_xid < pg_snapshot_xmin(pg_current_snapshot())
    order by t.changed_xid, t.id
    limit ${limit}`)
  const typed = rows as (StandingRow & { xid: string })[]
  const tail = typed.at(-1)
  return { tickets: typed.map(standingView), last: tail ? { xid: tail.xid, id: tail.id } : null }
}

/** Escapes LIKE's wildcards in a search term. */
const likeEscaped = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`)

/** Tickets of the list whose identifier or order id starts with `q`, or whose holder's name or email contains it. */
export async function searchTickets(db: Db, list: ListRow, q: string, limit: number): Promise<ScanTicketView[]> {
  const term = likeEscaped(q)
  const { rows } = await db.execute(sql`
    select ${TICKET_COLUMNS}, ${standingOn(list)}
    ${TICKET_JOINS}
    where ${onList(list)}
      and (t.identifier like ${`${term.toUpperCase()}%`} or o.id::text like ${`${term.toLowerCase()}%`}
           or (c.first_name || ' ' || c.last_name) ilike ${`%${term}%`} or c.email ilike ${`%${term}%`})
    order by t.identifier
    limit ${limit}`)
  return (rows as StandingRow[]).map(standingView)
}

export type StatusRow = { inventory_id: string; name: string; date: string; variant: string | null; tickets: number; checked_in: number; inside: number }

/** Valid tickets of the list by inventory and variant: how many, how many checked in, how many inside now. */
export async function listStatusRows(db: Db, list: ListRow): Promise<StatusRow[]> {
  const { rows } = await db.execute(sql`
    select t.inventory_id, i.name, i.date::text as date, oi.variant,
           count(*)::int as tickets,
           count(*) filter (where s.entered)::int as checked_in,
           count(*) filter (where s.last_type = 'entry')::int as inside
    ${TICKET_JOINS}
    join inventories i on i.id = t.inventory_id
    cross join lateral (
      select ${enteredSql(sql`t.id`, sql`${list.id}::uuid`)} as entered, ${latestSql('type', sql`t.id`, sql`${list.id}::uuid`)} as last_type
    ) s
    where ${onList(list)} and t.voided_at is null
    group by t.inventory_id, i.name, i.date, oi.variant
    order by i.date, i.name, t.inventory_id, oi.variant nulls first`)
  return rows as StatusRow[]
}

/** A list's scans, newest first, filtered by identifier and success. */
export async function listCheckinRows(
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

/** This device's successful scan on the list with this nonce, locked. */
export const lockOwnCheckin = async (db: Db, deviceId: string, listId: string, nonce: string) =>
  (
    await db
      .select()
      .from(checkins)
      .where(and(eq(checkins.deviceId, deviceId), eq(checkins.listId, listId), eq(checkins.nonce, nonce), eq(checkins.successful, true)))
      .for('update')
  )[0]

export const annulCheckinRow = async (db: Db, id: string) =>
  (
    await db
      .update(checkins)
      .set({ annulledAt: sql`coalesce(${checkins.annulledAt}, now())` })
      .where(eq(checkins.id, id))
      .returning()
  )[0]!
