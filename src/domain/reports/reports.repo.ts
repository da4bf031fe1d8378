import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'

/**
 * The ledger read for sales reports and affiliate statements (docs/reports.md). Only `transactions`
 * is read for money; inventories give the tickets' event and date, refunds the tickets they paid
 * for. Transfers are no sales: they write no ledger rows, so nothing here sees them.
 */

export const DIMENSIONS = ['day', 'event', 'inventory', 'variant', 'payment_method', 'affiliate', 'coupon'] as const
export type Dimension = (typeof DIMENSIONS)[number]
export type Basis = 'sold' | 'event'

/** A period: local dates `[from, to)` of the seller's time zone. */
export type LocalPeriod = { sellerId: string; timezone: string; from: string; to: string }

/** The seller's time zone and today there, or undefined for an unknown seller. */
export async function findSellerClock(db: Db, sellerId: string): Promise<{ timezone: string; today: string } | undefined> {
  const { rows } = await db.execute<{ timezone: string; today: string }>(
    sql`select timezone, (now() at time zone timezone)::date::text as today from sellers where id = ${sellerId}`,
  )
  return rows[0]
}

/**
 * Runs a report's reads in one read-only snapshot (its sales and its refunds agree), without
 * PostgreSQL's JIT: over 100,000 tickets the refunds' per-item lookups look costly enough to the
 * planner to compile, which took 300 ms of a 400 ms statement, for rows read in milliseconds; and
 * with room to group in memory rather than sort on disk (bench/README.md, the sales report).
 */
export const readReport = <T>(db: Db, read: (tx: Db) => Promise<T>): Promise<T> =>
  db.transaction(
    async (tx) => {
      await tx.execute(sql`set local jit = off`)
      await tx.execute(sql`set local work_mem = '32MB'`)
      return read(tx)
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  )

/** The instant a local date starts at in the time zone. */
const startOf = (day: string, timezone: string) => sql`(${day}::date::timestamp at time zone ${timezone})`

/** Ledger rows written in the period (the `(seller_id, created_at)` index). */
const writtenIn = (alias: SQL, p: LocalPeriod) =>
  sql`${alias}.seller_id = ${p.sellerId} and ${alias}.created_at >= ${startOf(p.from, p.timezone)} and ${alias}.created_at < ${startOf(p.to, p.timezone)}`

/** A sale/void row's value of a dimension (t: the ledger row, i: its inventory). */
const saleDimension = (dimension: Dimension, basis: Basis, timezone: string): SQL => {
  switch (dimension) {
    case 'day':
      return basis === 'sold' ? sql`(t.created_at at time zone ${timezone})::date::text` : sql`i.date::text`
    case 'event':
      return sql`i.event_id`
    case 'inventory':
      return sql`t.inventory_id`
    case 'variant':
      return sql`t.variant`
    case 'payment_method':
      return sql`t.payment_method`
    case 'affiliate':
      return sql`t.affiliate_code`
    case 'coupon':
      return sql`t.coupon_code`
  }
}

export type SaleAggregate = { values: (string | null)[]; tickets: number; gross: number; discount: number; interest: number; net: number }

/**
 * The sale and void rows of the period summed per group, in one statement: each row already
 * holds its item's share of the order's discount and interest (ledger.ts), so nothing is split.
 * `values` are the group's dimension values, in the order asked.
 */
export async function sumSales(db: Db, p: LocalPeriod & { basis: Basis; groupBy: readonly Dimension[] }): Promise<SaleAggregate[]> {
  const dims = p.groupBy.map((dimension, n) => sql`${saleDimension(dimension, p.basis, p.timezone)} as ${sql.raw(`d${n}`)}`)
  const groups = p.groupBy.map((_, n) => sql.raw(`d${n}`))
  const inPeriod = p.basis === 'sold' ? writtenIn(sql`t`, p) : sql`t.seller_id = ${p.sellerId} and i.date >= ${p.from}::date and i.date < ${p.to}::date`
  const { rows } = await db.execute<Record<string, string | null>>(sql`
    select ${sql.join(dims, sql`, `)},
           sum(t.tickets)::text as tickets, sum(t.gross)::text as gross, sum(t.discount)::text as discount,
           sum(t.interest)::text as interest, sum(t.amount)::text as net
      from transactions t
      join inventories i on i.id = t.inventory_id
     where t.kind in ('sale', 'void') and ${inPeriod}
     group by ${sql.join(groups, sql`, `)}`)
  return rows.map((row) => ({
    values: p.groupBy.map((_, n) => row[`d${n}`] ?? null),
    tickets: Number(row.tickets),
    gross: Number(row.gross),
    discount: Number(row.discount),
    interest: Number(row.interest),
    net: Number(row.net),
  }))
}

/** A done refund and one item of its order it may be spread over (none: the item fields are null). */
export type RefundTarget = {
  refund_id: string
  amount: number
  refund_day: string
  payment_method: string | null
  affiliate_code: string | null
  refund_coupon: string | null
  has_tickets: boolean
  order_item_id: string | null
  inventory_id: string | null
  event_id: string | null
  event_day: string | null
  variant: string | null
  coupon_code: string | null
  sale_method: string | null
  sale_net: number
  sale_tickets: number
  /** How many of the refund's tickets belong to this item. */
  refunded_tickets: number
}

/**
 * The done refunds that may fall in the period, each with every item its order sold (in the
 * order's line order): under `sold` those written in the period, under `event` those of orders
 * with tickets dated in it (which of their parts fall in it is decided after the split).
 */
export async function listRefundTargets(db: Db, p: LocalPeriod & { basis: Basis }): Promise<RefundTarget[]> {
  const candidates =
    p.basis === 'sold'
      ? writtenIn(sql`t`, p)
      : sql`t.seller_id = ${p.sellerId} and exists (
              select 1 from transactions s join inventories i on i.id = s.inventory_id
               where s.order_id = t.order_id and s.kind = 'sale' and i.date >= ${p.from}::date and i.date < ${p.to}::date)`
  const { rows } = await db.execute<Record<string, unknown>>(sql`
    with r as (
      select t.order_id, t.refund_id, -t.amount as amount, t.payment_method, t.affiliate_code, t.coupon_code,
             (t.created_at at time zone ${p.timezone})::date::text as refund_day, f.tickets as refund_tickets
        from transactions t
        join refunds f on f.id = t.refund_id
       where t.kind = 'refund' and ${candidates}
    )
    select r.refund_id, r.amount::text, r.refund_day, r.payment_method, r.affiliate_code, r.coupon_code as refund_coupon,
           jsonb_array_length(r.refund_tickets) > 0 as has_tickets,
           s.order_item_id, s.inventory_id, i.event_id, i.date::text as event_day, s.variant, s.coupon_code,
           s.payment_method as sale_method, coalesce(s.amount, 0)::text as sale_net, coalesce(s.tickets, 0) as sale_tickets,
           case when jsonb_array_length(r.refund_tickets) > 0 then
             (select count(*) from jsonb_array_elements_text(r.refund_tickets) as named(identifier)
                join tickets k on k.identifier = named.identifier
               where k.order_item_id = s.order_item_id)::int
           else 0 end as refunded_tickets
      from r
      left join transactions s on s.order_id = r.order_id and s.kind = 'sale'
      left join inventories i on i.id = s.inventory_id
      left join order_items oi on oi.id = s.order_item_id
     order by r.refund_id, oi.position`)
  return rows.map((row) => ({
    ...(row as unknown as RefundTarget),
    amount: Number(row.amount),
    sale_net: Number(row.sale_net),
    sale_tickets: Number(row.sale_tickets),
    refunded_tickets: Number(row.refunded_tickets),
  }))
}

export type StatementSums = {
  affiliate_code: string
  commission_rate: string
  tickets: number
  gross: number
  discount: number
  net: number
  commission: number
  clawback: number
}

/**
 * An affiliate's statement of a period, in one statement: its sales of the period less their voids
 * in it, and the net voided in it of its sales of earlier periods; commissions in numeric, rounded
 * half-up to the centavo (PostgreSQL's `round` of a non-negative numeric). Undefined: no such
 * affiliate of the seller.
 */
export async function sumAffiliateStatement(db: Db, p: LocalPeriod & { code: string }): Promise<StatementSums | undefined> {
  const { rows } = await db.execute<Record<string, string>>(sql`
    with a as (
      select code, commission_rate from affiliates where seller_id = ${p.sellerId} and lower(code) = lower(${p.code})
    ),
    moves as (
      select t.kind, t.tickets, t.gross, t.discount,
             t.kind = 'sale' or s.created_at >= ${startOf(p.from, p.timezone)} as of_period
        from transactions t
        join a on lower(t.affiliate_code) = lower(a.code)
        left join transactions s on t.kind = 'void' and s.order_id = t.order_id and s.order_item_id = t.order_item_id and s.kind = 'sale'
       where t.kind in ('sale', 'void') and ${writtenIn(sql`t`, p)}
    ),
    sums as (
      select coalesce(sum(tickets) filter (where of_period), 0) as tickets,
             coalesce(sum(gross) filter (where of_period), 0) as gross,
             coalesce(sum(discount) filter (where of_period), 0) as discount,
             coalesce(sum(discount - gross) filter (where not of_period), 0) as clawback_net
        from moves
    )
    select a.code as affiliate_code, a.commission_rate::text as commission_rate,
           sums.tickets::text, sums.gross::text, sums.discount::text, (sums.gross - sums.discount)::text as net,
           round(a.commission_rate * (sums.gross - sums.discount))::text as commission,
           round(a.commission_rate * sums.clawback_net)::text as clawback
      from a cross join sums`)
  const row = rows[0]
  if (!row) return undefined
  return {
    affiliate_code: row.affiliate_code!,
    commission_rate: row.commission_rate!,
    tickets: Number(row.tickets),
    gross: Number(row.gross),
    discount: Number(row.discount),
    net: Number(row.net),
    commission: Number(row.commission),
    clawback: Number(row.clawback),
  }
}
