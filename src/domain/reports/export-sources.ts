import { type SQL, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { Cell, Column } from './export-format.js'
import type { ExportType } from './exports.table.js'

/**
 * What an export reads (docs/exports.md): a seller's records of one type, `[from, to)` as instants
 * (the seller's dates at midnight in its time zone), perhaps of one event; times written in the
 * seller's time zone.
 */
export type ExportFilter = { sellerId: string; timezone: string; from: Date | null; to: Date | null; eventId: string | null }

/** One page of rows read by keyset, and the key to read on from; `keys` counts what progress counts. */
export type SourcePage = { rows: Cell[][]; after: string[] | null; keys: number }

export type ExportSource = {
  columns: readonly Column[]
  /** How many keys (orders, scans, ledger rows) the export will read: its progress's 100 %. */
  count(db: Db, filter: ExportFilter): Promise<number>
  /** The next page after `after` (null: the first); `after` null in the answer: nothing more. */
  page(db: Db, filter: ExportFilter, after: string[] | null, size: number): Promise<SourcePage>
}

const text = (key: string): Column => ({ key, kind: 'text' })
const money = (key: string): Column => ({ key, kind: 'money' })
const int = (key: string): Column => ({ key, kind: 'int' })

/** A timestamp as the seller reads it: `YYYY-MM-DD HH:MM:SS` in its time zone. */
const local = (column: SQL, timezone: string) => sql`to_char(${column} at time zone ${timezone}, 'YYYY-MM-DD HH24:MI:SS')`

const within = (column: SQL, filter: ExportFilter): SQL => {
  const parts: SQL[] = [sql`true`]
  if (filter.from) parts.push(sql`${column} >= ${filter.from.toISOString()}::timestamptz`)
  if (filter.to) parts.push(sql`${column} < ${filter.to.toISOString()}::timestamptz`)
  return sql.join(parts, sql` and `)
}

const rowsOf = async (db: Db, query: SQL) => (await db.execute<Record<string, unknown>>(query)).rows
const countOf = async (db: Db, query: SQL) => Number((await rowsOf(db, query))[0]?.n ?? 0)
const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))
const str = (value: unknown): string | null => (value === null || value === undefined ? null : String(value))

/**
 * Orders of the seller created in the range: the keys of the orders' and the tickets' pages. A page
 * of keys is read first, then what of it belongs to the event (a test of the event per order in
 * the keys' own query, misjudged by the planner, made each page a scan of every item).
 */
const ordersWhere = (filter: ExportFilter) => sql`o.seller_id = ${filter.sellerId}::uuid and ${within(sql`o.created_at`, filter)}`

const ofEvent = (filter: ExportFilter) =>
  filter.eventId ? sql`and exists (select 1 from order_items e_oi where e_oi.order_id = o.id and e_oi.event_id = ${filter.eventId}::uuid)` : sql``

const idList = (keys: Record<string, unknown>[]) =>
  sql.join(
    keys.map((k) => sql`${String(k.id)}::uuid`),
    sql`, `,
  )

/**
 * After the key `[at, id]`, in `(at, id)` order; written so that the index on `(seller_id, at)`
 * starts at `at` (a row comparison alone would be read from the seller's first row on every page).
 */
const afterKey = (at: SQL, id: SQL, after: string[] | null) =>
  after ? sql`and ${at} >= ${after[0]}::timestamptz and (${at} > ${after[0]}::timestamptz or ${id} > ${after[1]}::uuid)` : sql``

const afterOrder = (after: string[] | null) => afterKey(sql`o.created_at`, sql`o.id`, after)

/** Keys of a page of orders, oldest first: `[created_at, id]` as text. */
async function orderKeys(db: Db, filter: ExportFilter, after: string[] | null, size: number) {
  return rowsOf(
    db,
    sql`select o.id, o.created_at::text as at from orders o
         where ${ordersWhere(filter)} ${afterOrder(after)}
         order by o.created_at, o.id limit ${size}`,
  )
}

const ordersSource: ExportSource = {
  columns: [
    text('id'),
    text('created_at'),
    text('status'),
    text('buyer_email'),
    text('buyer_name'),
    text('affiliate_code'),
    text('coupon_code'),
    text('payment_method'),
    int('installments'),
    money('gross'),
    money('discount'),
    money('interest'),
    money('total'),
    money('paid_total'),
    money('refunded_total'),
  ],
  count: (db, filter) => countOf(db, sql`select count(*) as n from orders o where ${ordersWhere(filter)}`),
  async page(db, filter, after, size) {
    const keys = await orderKeys(db, filter, after, size)
    const last = keys.at(-1)
    if (!last) return { rows: [], after: null, keys: 0 }
    const rows = await rowsOf(
      db,
      sql`select o.id, ${local(sql`o.created_at`, filter.timezone)} as created_local, o.status,
                 o.buyer_email, o.buyer_name, o.affiliate_code, o.coupon->>'code' as coupon_code, o.payment_method, o.installments,
                 o.subtotal, o.discount, o.interest, o.total, o.paid_total, o.refunded_total
            from orders o
           where o.id in (${idList(keys)}) ${ofEvent(filter)}
           order by o.created_at, o.id`,
    )
    return {
      rows: rows.map((r) => [
        str(r.id),
        str(r.created_local),
        str(r.status),
        str(r.buyer_email),
        str(r.buyer_name),
        str(r.affiliate_code),
        str(r.coupon_code),
        str(r.payment_method),
        num(r.installments),
        num(r.subtotal),
        num(r.discount),
        num(r.interest),
        num(r.total),
        num(r.paid_total),
        num(r.refunded_total),
      ]),
      after: keys.length < size ? null : [String(last.at), String(last.id)],
      keys: keys.length,
    }
  },
}

/** Tickets, by their order (sold when it was created): a page of orders, then their tickets. */
const ticketsSource: ExportSource = {
  columns: [
    text('identifier'),
    text('order_id'),
    text('event'),
    text('date'),
    text('time'),
    text('inventory'),
    text('variant'),
    text('seat'),
    text('holder'),
    text('status'),
    money('price'),
  ],
  count: (db, filter) => countOf(db, sql`select count(*) as n from orders o where ${ordersWhere(filter)}`),
  async page(db, filter, after, size) {
    // Orders hold a few tickets each: a page of a tenth as many orders reads about `size` tickets.
    const keys = await orderKeys(db, filter, after, Math.max(1, Math.ceil(size / 10)))
    const last = keys.at(-1)
    if (!last) return { rows: [], after: null, keys: 0 }
    const rows = await rowsOf(
      db,
      sql`select t.identifier, t.order_id, e.title, inv.date::text as date, inv.time, oi.name, oi.variant, t.seat_id, t.holder_name,
                 case when o.status = 'expired' then 'expired' when t.voided_at is not null then 'voided'
                      when t.transferred_at is not null then 'transferred' when o.status = 'pending' then 'pending' else 'valid' end as status,
                 oi.unit_price
            from orders o
            join tickets t on t.order_id = o.id
            join order_items oi on oi.id = t.order_item_id
            join inventories inv on inv.id = t.inventory_id
            join events e on e.id = inv.event_id
           where o.id in (${idList(keys)}) ${filter.eventId ? sql`and oi.event_id = ${filter.eventId}::uuid` : sql``}
           order by o.created_at, o.id, oi.position, t.identifier`,
    )
    return {
      rows: rows.map((r) => [
        str(r.identifier),
        str(r.order_id),
        str(r.title),
        str(r.date),
        str(r.time),
        str(r.name),
        str(r.variant),
        str(r.seat_id),
        str(r.holder_name),
        str(r.status),
        num(r.unit_price),
      ]),
      after: keys.length < Math.max(1, Math.ceil(size / 10)) ? null : [String(last.at), String(last.id)],
      keys: keys.length,
    }
  },
}

const checkinsWhere = (filter: ExportFilter) =>
  sql`c.seller_id = ${filter.sellerId}::uuid and ${within(sql`c.scanned_at`, filter)}
      ${filter.eventId ? sql`and l.event_id = ${filter.eventId}::uuid` : sql``}`

const checkinsSource: ExportSource = {
  columns: [text('list'), text('identifier'), text('type'), { key: 'successful', kind: 'bool' }, text('reason'), text('scanned_at'), text('device')],
  count: (db, filter) => countOf(db, sql`select count(*) as n from checkins c left join checkin_lists l on l.id = c.list_id where ${checkinsWhere(filter)}`),
  async page(db, filter, after, size) {
    const rows = await rowsOf(
      db,
      sql`select c.id, c.scanned_at::text as at, l.name as list, c.identifier, c.type, c.successful, c.reason,
                 ${local(sql`c.scanned_at`, filter.timezone)} as scanned_local, d.name as device
            from checkins c
            left join checkin_lists l on l.id = c.list_id
            join checkin_devices d on d.id = c.device_id
           where ${checkinsWhere(filter)} ${afterKey(sql`c.scanned_at`, sql`c.id`, after)}
           order by c.scanned_at, c.id limit ${size}`,
    )
    const last = rows.at(-1)
    return {
      rows: rows.map((r) => [str(r.list), str(r.identifier), str(r.type), Boolean(r.successful), str(r.reason), str(r.scanned_local), str(r.device)]),
      after: rows.length < size || !last ? null : [String(last.at), String(last.id)],
      keys: rows.length,
    }
  },
}

const transactionsWhere = (filter: ExportFilter) =>
  sql`x.seller_id = ${filter.sellerId}::uuid and ${within(sql`x.created_at`, filter)}
      ${filter.eventId ? sql`and exists (select 1 from order_items oi where oi.order_id = x.order_id and oi.event_id = ${filter.eventId}::uuid)` : sql``}`

const transactionsSource: ExportSource = {
  columns: [
    text('id'),
    text('seller_id'),
    text('order_id'),
    text('kind'),
    money('amount'),
    int('tickets'),
    money('gross'),
    money('discount'),
    money('interest'),
    text('payment_method'),
    text('affiliate_code'),
    text('coupon_code'),
    text('inventory_id'),
    text('variant'),
    text('created_at'),
  ],
  count: (db, filter) => countOf(db, sql`select count(*) as n from transactions x where ${transactionsWhere(filter)}`),
  async page(db, filter, after, size) {
    const rows = await rowsOf(
      db,
      sql`select x.seq::text as seq, x.id, x.seller_id, x.order_id, x.kind, x.amount, x.tickets, x.gross, x.discount, x.interest,
                 x.payment_method, x.affiliate_code, x.coupon_code, x.inventory_id, x.variant, ${local(sql`x.created_at`, filter.timezone)} as created_local
            from transactions x
           where ${transactionsWhere(filter)} ${after ? sql`and x.seq > ${after[0]}::bigint` : sql``}
           order by x.seq limit ${size}`,
    )
    const last = rows.at(-1)
    return {
      rows: rows.map((r) => [
        str(r.id),
        str(r.seller_id),
        str(r.order_id),
        str(r.kind),
        num(r.amount),
        num(r.tickets),
        num(r.gross),
        num(r.discount),
        num(r.interest),
        str(r.payment_method),
        str(r.affiliate_code),
        str(r.coupon_code),
        str(r.inventory_id),
        str(r.variant),
        str(r.created_local),
      ]),
      after: rows.length < size || !last ? null : [String(last.seq)],
      keys: rows.length,
    }
  },
}

export const EXPORT_SOURCES: Record<ExportType, ExportSource> = {
  orders: ordersSource,
  tickets: ticketsSource,
  checkins: checkinsSource,
  transactions: transactionsSource,
}
