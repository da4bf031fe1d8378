import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { events } from '../../src/domain/catalog/events.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { heldQuantities } from '../../src/domain/inventory/held.js'
import type { Db } from '../../src/platform/db/database.js'

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

/** The payments row's flash sales, in the order they run: each a warm-up, then plain, awaiting payment, awaiting payment, plain. */
const SALES = ['plain warm-up', 'awaiting warm-up', 'plain 1', 'awaiting 1', 'awaiting 2', 'plain 2'] as const

/**
 * The payments row's data (docs/payments.md): an event of the bench seller with the flash sales run
 * plain and awaiting payment (`capacity` tickets each: a warm-up of each, then two measured
 * sales of each), and the inventory the orders awaiting payment are placed on
 * (`pendingCapacity` tickets: exactly what its buyers want, so that every one of them wins).
 */
export async function seedPayments(app: FastifyInstance, options: { sellerId: string; capacity: number; pendingCapacity: number }) {
  const [event] = await app.db
    .insert(events)
    .values({ sellerId: options.sellerId, title: 'Bench payments', slug: `bench-payments-${Date.now()}`, status: 'published', source: 'bench' })
    .returning({ id: events.id })
  const rows = await app.db
    .insert(inventories)
    .values(
      [...SALES.map((name) => ({ name, capacity: options.capacity })), { name: 'awaiting payment, every buyer wins', capacity: options.pendingCapacity }].map(
        ({ name, capacity }) => ({ sellerId: options.sellerId, eventId: event!.id, date: day(90), name, price: 10000, capacity }),
      ),
    )
    .returning({ id: inventories.id })
  const id = (name: (typeof SALES)[number]) => rows[SALES.indexOf(name)]!.id
  return {
    plainWarmUp: id('plain warm-up'),
    awaitingWarmUp: id('awaiting warm-up'),
    plain: [id('plain 1'), id('plain 2')],
    awaiting: [id('awaiting 1'), id('awaiting 2')],
    pending: rows[SALES.length]!.id,
  }
}

export type PaymentsSeed = Awaited<ReturnType<typeof seedPayments>>

/**
 * Makes these orders due now, as the clock would after `payment_minutes` (the bench's own write:
 * nobody waits 30 minutes). Only orders still pending move. Answers how many moved and the
 * instant they fell due, by the database's clock (epoch ms), from which their expiry is timed.
 */
export async function makeDue(db: Db, orderIds: readonly string[]) {
  const [row] = (
    await db.execute<{ moved: number; due_ms: number }>(sql`
      with moved as (
        update orders set payment_due_at = now(), updated_at = now()
         where id = any(${`{${orderIds.join(',')}}`}::uuid[]) and status = 'pending'
        returning 1)
      select (select count(*)::int from moved) as moved, extract(epoch from now()) * 1000 as due_ms`)
  ).rows
  return { moved: Number(row!.moved), dueMs: Number(row!.due_ms) }
}

/**
 * What the expiry is polled by: the inventory's `sold`, and the database's clock as it read it
 * (epoch ms). One row by its key, so that polling often costs the server next to nothing.
 */
export async function soldNow(db: Db, inventoryId: string) {
  const [row] = (
    await db.execute<{ sold: number; now_ms: number }>(
      sql`select sold, extract(epoch from clock_timestamp()) * 1000 as now_ms from inventories where id = ${inventoryId}`,
    )
  ).rows
  return row ? { sold: Number(row.sold), nowMs: Number(row.now_ms) } : null
}

/**
 * The payments row's correctness, read back in one statement for an inventory whose orders hold
 * it alone: capacity, `sold`, held (THE definition of held); its orders by status (with `ids`,
 * each status's order ids too); its tickets still valid, by their order's status, and voided; the
 * tickets the pending and confirmed orders' items count. `sinceMs` (epoch ms, the database's
 * clock): the expired orders' `expired_at` from then, at p50, p99 and the last one.
 */
export async function paymentsState(db: Db, inventoryId: string, options: { sinceMs: number; ids: boolean }) {
  const [row] = (
    await db.execute<{
      capacity: number
      sold: number
      orders: Record<string, number> | null
      ids: Record<string, string[]> | null
      valid_tickets: Record<string, number> | null
      voided_tickets: number
      ordered: number
      expired_p50_ms: number | null
      expired_p99_ms: number | null
      expired_last_ms: number | null
    }>(sql`
      with o as (
        select o.id, o.status, o.expired_at from orders o
         where o.id in (select t.order_id from tickets t where t.inventory_id = ${inventoryId}::uuid)),
           t as (select t.voided_at, o.status from tickets t join o on o.id = t.order_id where t.inventory_id = ${inventoryId}::uuid),
           expiries as (select extract(epoch from o.expired_at) * 1000 - ${options.sinceMs}::double precision as ms from o
                         where o.status = 'expired' and o.expired_at is not null)
      select i.capacity, i.sold,
             (select jsonb_object_agg(status, n) from (select status, count(*)::int as n from o group by status) s) as orders,
             ${options.ids ? sql`(select jsonb_object_agg(status, ids) from (select status, jsonb_agg(id) as ids from o group by status) s)` : sql`null`} as ids,
             (select jsonb_object_agg(status, n) from (select status, count(*)::int as n from t where voided_at is null group by status) s) as valid_tickets,
             (select count(*)::int from t where voided_at is not null) as voided_tickets,
             (select coalesce(sum(oi.quantity), 0)::int from order_items oi join o on o.id = oi.order_id
               where oi.inventory_id = i.id and o.status in ('pending', 'confirmed')) as ordered,
             (select percentile_disc(0.5) within group (order by ms) from expiries) as expired_p50_ms,
             (select percentile_disc(0.99) within group (order by ms) from expiries) as expired_p99_ms,
             (select max(ms) from expiries) as expired_last_ms
        from inventories i where i.id = ${inventoryId}::uuid`)
  ).rows
  if (!row) return null
  const held = (await heldQuantities(db, [inventoryId])).get(inventoryId) ?? 0
  const ms = (value: number | null) => (value === null ? null : Math.round(Number(value)))
  return {
    capacity: Number(row.capacity),
    sold: Number(row.sold),
    held,
    orders: row.orders ?? {},
    ids: row.ids ?? {},
    validTickets: row.valid_tickets ?? {},
    voidedTickets: Number(row.voided_tickets),
    ordered: Number(row.ordered),
    expiredP50Ms: ms(row.expired_p50_ms),
    expiredP99Ms: ms(row.expired_p99_ms),
    expiredLastMs: ms(row.expired_last_ms),
  }
}

export type PaymentsState = NonNullable<Awaited<ReturnType<typeof paymentsState>>>
