import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { scanTicketStatus, ticketStatus } from '../orders/order-view.js'
import { ORDER_STATUSES, type OrderStatus } from '../orders/orders.table.js'
import type { ScanType } from './checkin.table.js'
import type { ListRow } from './lists.repo.js'
import type { ScanTicketView } from './views.js'

/*
 * A list's tickets as the gates see them: which tickets a list admits, where each stands on it,
 * and the readings built on those two (the offline feed, the search, the counts). Each rule is
 * written here once, in SQL, and every reading and every scan uses it.
 */

/** A ticket as the gates judge it (the columns its view shows, as read), with its window of entry in the seller's time zone. */
export type GateTicketRow = Pick<
  ScanTicketView,
  'identifier' | 'order_id' | 'event_id' | 'inventory_id' | 'date' | 'time' | 'doors_time' | 'venue' | 'name' | 'variant' | 'seat' | 'attention'
> & {
  id: string
  /** Its window of entry (WINDOW_COLUMNS). */
  opens_at: Date
  closes_at: Date
  voided: boolean
  /** Given away: its identifier and codes are revoked (docs/transfers.md). */
  transferred: boolean
  code_version: number
  /** With `voided`, what the ticket's status is (`ticketStatus`): its order may await payment or have expired unpaid. */
  order_status: OrderStatus
  holder: string | null
}

/** A ticket's scans on one list that count: successful and not annulled. */
export type ScanState = { entered: boolean; lastType: ScanType | null; lastAt: Date | null }

export const asDate = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)))

/**
 * A ticket's window of entry, the one definition (docs/door.md, docs/selling.md), in the seller's time zone
 * (`seller`): from 2 hours before its inventory's doors open on its date (queues form before the
 * doors open; doors at 01:00 open it at 23:00 the day before), or from the start of its date when
 * no doors time is said, until 06:00 of the next day (late shows end after midnight). Scans judge
 * by it, and the feed gives it to offline gates as two instants, so that they judge by it too.
 */
const WINDOW_COLUMNS = sql`
  ((inv.date + coalesce(inv.doors_time::interval - interval '2 hours', interval '0')) at time zone seller.timezone) as opens_at,
  ((inv.date + 1)::timestamp + interval '6 hours') at time zone seller.timezone as closes_at`

/**
 * The ticket's columns. Its date is its inventory's current one (re-dating an inventory moves
 * its tickets), and so are its show times and its window of entry. Its status follows its
 * order's, read here and not kept on the ticket: whoever changes an order's status (a payment,
 * an expiry) marks its tickets changed in the same transaction, and the feed then returns them
 * with the new status. It asks for attention when its inventory or its variant does. Its seat is read from its item's snapshot of the seats sold
 * (at most 20, already in the row joined): no read of the plan's seats, and nothing at all for an
 * unseated ticket.
 */
export const TICKET_COLUMNS = sql`
  t.id, t.identifier, t.order_id, t.inventory_id, inv.event_id, inv.date::text as date, oi.name, oi.variant,
  inv.time, inv.doors_time, ev.venue, ${WINDOW_COLUMNS},
  case when t.seat_id is not null then (select e from jsonb_array_elements(oi.seats) as e where e ->> 'id' = t.seat_id limit 1) end as seat,
  t.voided_at is not null as voided, t.transferred_at is not null as transferred, t.code_version, o.status as order_status,
  nullif(trim(coalesce(t.holder_name, o.buyer_name)), '') as holder,
  inv.checkin_attention or inv.variants @> jsonb_build_array(jsonb_build_object('name', oi.variant, 'checkin_attention', true)) as attention`

export const TICKET_JOINS = sql`
  from tickets t
  join orders o on o.id = t.order_id
  join sellers seller on seller.id = o.seller_id
  join order_items oi on oi.id = t.order_item_id
  join inventories inv on inv.id = t.inventory_id
  join events ev on ev.id = inv.event_id`

/**
 * "The ticket is on the list", the one definition: its inventory (`inv`) is of the list's event,
 * one the list names (or any), and its variant one the list names (or any). The list is given as
 * SQL expressions: a joined row's columns, or a list's values as parameters, where a value known to
 * be null (every inventory, every variant) is left out.
 */
export const coveredBy = (list: { eventId: SQL; inventoryIds: SQL | null; variants: SQL | null }): SQL => sql`
  (inv.event_id = ${list.eventId}
   ${list.inventoryIds ? sql`and (${list.inventoryIds} is null or t.inventory_id = any(${list.inventoryIds}))` : sql``}
   ${list.variants ? sql`and (${list.variants} is null or oi.variant = any(${list.variants}))` : sql``})`

/** `coveredBy` a list row's values. */
export const onList = (list: ListRow): SQL =>
  coveredBy({
    eventId: sql`${list.eventId}::uuid`,
    inventoryIds: list.inventoryIds ? sql`${sql.param(list.inventoryIds)}::uuid[]` : null,
    variants: list.variants ? sql`${sql.param(list.variants)}::text[]` : null,
  })

/*
 * A ticket's standing on a list, the one definition every reading uses: of its scans on the list,
 * only the successful ones that were not annulled count. It has entered when one of them is an
 * entry; the latest of them (by when it counts as scanned) says whether it is inside. Scalar
 * subqueries, so that a listing evaluates them only for the rows it answers.
 */
const counting = (ticketId: SQL, listId: SQL) => sql`e.ticket_id = ${ticketId} and e.list_id = ${listId} and e.successful and e.annulled_at is null`
const enteredSql = (ticketId: SQL, listId: SQL) => sql`exists (select 1 from checkins e where ${counting(ticketId, listId)} and e.type = 'entry')`
const latestSql = (column: 'type' | 'scanned_at', ticketId: SQL, listId: SQL) =>
  sql`(select e.${sql.raw(column)} from checkins e where ${counting(ticketId, listId)} order by e.scanned_at desc, e.created_at desc limit 1)`

/** The ticket's (`t`) standing on a list, as the columns `entered`, `last_type` and `last_at`. */
export const standingColumns = (listId: SQL): SQL => {
  const ticket = sql`t.id`
  return sql`${enteredSql(ticket, listId)} as entered, ${latestSql('type', ticket, listId)} as last_type, ${latestSql('scanned_at', ticket, listId)} as last_at`
}

export type StandingColumns = { entered: boolean; last_type: ScanType | null; last_at: unknown }

export const readState = (row: StandingColumns): ScanState => ({
  entered: row.entered,
  lastType: row.last_type,
  lastAt: row.last_at ? asDate(row.last_at) : null,
})

export const toScanTicketView = (row: GateTicketRow, state: ScanState): ScanTicketView => ({
  identifier: row.identifier,
  order_id: row.order_id,
  event_id: row.event_id,
  inventory_id: row.inventory_id,
  date: row.date,
  time: row.time,
  doors_time: row.doors_time,
  venue: row.venue ?? null,
  entry_opens_at: row.opens_at.toISOString(),
  entry_closes_at: row.closes_at.toISOString(),
  name: row.name,
  variant: row.variant,
  seat: row.seat ?? null,
  status: scanTicketStatus(row.order_status, row.voided, row.transferred),
  code_version: row.code_version,
  holder: row.holder ? { name: row.holder } : null,
  checked_in: state.entered,
  inside: state.lastType === 'entry',
  last_checkin_at: state.lastAt?.toISOString() ?? null,
  attention: row.attention,
})

type StandingRow = GateTicketRow & StandingColumns

/** A ticket row as the driver answered it: its window's instants may come as text. */
export const readGateTicket = <R extends GateTicketRow>(row: R): R => ({ ...row, opens_at: asDate(row.opens_at), closes_at: asDate(row.closes_at) })

const standingView = (row: StandingRow) => toScanTicketView(readGateTicket(row), readState(row))

/** A position in the ticket feed: the transaction that last changed a ticket, then its id. */
export type FeedPosition = { xid: string; id: string }

/**
 * The list's tickets changed after `after`, in the order of the transactions that changed them.
 * Only changes of transactions older than every transaction still running are read: one that
 * commits later has a larger id than any read now, so a client that goes on from the last row
 * never misses a change (it may read a ticket twice, which only repeats its newest state).
 */
export async function ticketFeedRows(
  db: Db,
  list: ListRow,
  after: FeedPosition,
  limit: number,
): Promise<{ tickets: ScanTicketView[]; last: FeedPosition | null }> {
  // The page is chosen first, from each inventory's tickets in feed order (its index on
  // inventory, change, id), at most `limit` of each: a page costs what its rows cost, not what
  // the list's other tickets (revoked ones included) would. Then its rows are read whole.
  const { rows } = await db.execute(sql`
    with page as (
      select p.id, p.changed_xid
      from inventories inv
      cross join lateral (
        select t.id, t.changed_xid
        from tickets t
        join order_items oi on oi.id = t.order_item_id
        where t.inventory_id = inv.id and ${onList(list)}
          and (t.changed_xid, t.id) > (${after.xid}::xid8, ${after.id}::uuid)
          and t.changed_xid < pg_snapshot_xmin(pg_current_snapshot())
        order by t.changed_xid, t.id
        limit ${limit}) p
      where inv.event_id = ${list.eventId}::uuid
      order by p.changed_xid, p.id
      limit ${limit})
    select ${TICKET_COLUMNS}, t.changed_xid::text as xid, ${standingColumns(sql`${list.id}::uuid`)}
    ${TICKET_JOINS}
    join page on page.id = t.id
    order by t.changed_xid, t.id`)
  const typed = rows as (StandingRow & { xid: string })[]
  const tail = typed.at(-1)
  return { tickets: typed.map(standingView), last: tail ? { xid: tail.xid, id: tail.id } : null }
}

/** Escapes LIKE's wildcards in a search term. */
const likeEscaped = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`)

/** Tickets of the list whose identifier or order id starts with `q`, or whose holder's name or email contains it. */
export async function searchTicketRows(db: Db, list: ListRow, q: string, limit: number): Promise<ScanTicketView[]> {
  const term = likeEscaped(q)
  const { rows } = await db.execute(sql`
    select ${TICKET_COLUMNS}, ${standingColumns(sql`${list.id}::uuid`)}
    ${TICKET_JOINS}
    where ${onList(list)}
      and (t.identifier like ${`${term.toUpperCase()}%`} or o.id::text like ${`${term.toLowerCase()}%`}
           or coalesce(t.holder_name, o.buyer_name) ilike ${`%${term}%`} or o.buyer_email ilike ${`%${term}%`})
    order by t.identifier
    limit ${limit}`)
  return (rows as StandingRow[]).map(standingView)
}

export type StatusRow = { inventory_id: string; name: string; date: string; variant: string | null; tickets: number; checked_in: number; inside: number }

/** The statuses of orders whose tickets are valid until voided (`ticketStatus`): neither awaiting payment nor expired unpaid. */
const PAID_ORDER_STATUSES = ORDER_STATUSES.filter((status) => ticketStatus(status, false) === 'valid')

/** Valid tickets of the list (of one date, when given) by inventory and variant: how many, how many checked in, how many inside now. */
export async function listStatusRows(db: Db, list: ListRow, date?: string): Promise<StatusRow[]> {
  const { rows } = await db.execute(sql`
    select t.inventory_id, inv.name, inv.date::text as date, oi.variant,
           count(*)::int as tickets,
           count(*) filter (where s.entered)::int as checked_in,
           count(*) filter (where s.last_type = 'entry')::int as inside
    ${TICKET_JOINS}
    cross join lateral (select ${standingColumns(sql`${list.id}::uuid`)}) s
    where ${onList(list)} and t.voided_at is null and t.transferred_at is null and o.status = any(${sql.param(PAID_ORDER_STATUSES)}::text[]) ${date ? sql`and inv.date = ${date}::date` : sql``}
    group by t.inventory_id, inv.name, inv.date, oi.variant
    order by inv.date, inv.name, t.inventory_id, oi.variant nulls first`)
  return rows as StatusRow[]
}

/** Marks tickets changed for the scanners' feed (a scan, an annulment, a re-dated inventory). */
export const markTicketsChangedQuery = (ticketIds: readonly string[]): SQL =>
  sql`update tickets set changed_xid = pg_current_xact_id() where id = any(${sql.param([...ticketIds])}::uuid[])`

/** Marks every ticket of an inventory changed: what the gates know of them (date, times, attention) has changed. */
export const markInventoryTicketsChanged = (db: Db, inventoryId: string) =>
  db.execute(sql`update tickets set changed_xid = pg_current_xact_id() where inventory_id = ${inventoryId}::uuid`)
