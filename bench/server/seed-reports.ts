import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../src/platform/db/database.js'
import { events } from '../../src/domain/catalog/events.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { sellers } from '../../src/domain/sellers/sellers.table.js'
import { signedInAdmin } from './seed-waitlist.js'

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

/** The reports row's events, each with a cheap and a dear inventory. */
const EVENTS = 10

/**
 * The reports row's data (docs/reports.md): a seller of its own with `tickets` tickets sold over the
 * last 30 days, written in bulk by SQL as the checkout would have left them (a basket, an order, two
 * items of 2 tickets, the tickets, a payment, and the ledger's two sale rows and payment row per
 * order): every 3rd order by credit card with interest, every 7th with a coupon, every 5th
 * through an affiliate, and every 50th with a done refund of 1,000 centavos without tickets (which
 * the report spreads over its two inventories). Selling 100,000 tickets through checkouts would
 * take the seed minutes; the report reads only what these rows hold. Answers the seller, the staff
 * token that reads its report, and what was written. `db`: a handle without the server's statement
 * timeout (the bulk writes may outlast it on a busy machine).
 */
export async function seedReports(app: FastifyInstance, db: Db, options: { tickets: number }) {
  const orders = Math.max(1, Math.floor(options.tickets / 4))
  const [seller] = await app.db
    .insert(sellers)
    .values({ name: 'Bench reports', storefrontUrl: 'https://reports.bench.example.com' })
    .returning({ id: sellers.id })
  const sellerId = seller!.id
  const eventRows = await app.db
    .insert(events)
    .values(
      Array.from({ length: EVENTS }, (_, n) => ({
        sellerId,
        title: `Bench report ${n}`,
        slug: `bench-report-${n}-${randomBytes(3).toString('hex')}`,
        status: 'published' as const,
        source: 'bench',
      })),
    )
    .returning({ id: events.id })
  const inventoryRows = await app.db
    .insert(inventories)
    .values(
      eventRows.flatMap((event, n) => [
        { sellerId, eventId: event.id, date: day(10 + n), name: 'Pista', price: 5000, capacity: orders * 2 },
        { sellerId, eventId: event.id, date: day(10 + n), name: 'Camarote', price: 12000, capacity: orders * 2 },
      ]),
    )
    .returning({ id: inventories.id, eventId: inventories.eventId, date: inventories.date, name: inventories.name, price: inventories.price })
  const cheap = inventoryRows.filter((_, n) => n % 2 === 0)
  const dear = inventoryRows.filter((_, n) => n % 2 === 1)
  const list = (values: readonly (string | number)[]) => `{${values.join(',')}}`
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local statement_timeout = 0`)
    // One row per order: its ids, when and how it was paid, its two inventories (of one event) and its money.
    await tx.execute(sql`
      create temp table bench_report_orders on commit drop as
      select g, gen_random_uuid() as order_id, gen_random_uuid() as basket_id, gen_random_uuid() as item1, gen_random_uuid() as item2,
             gen_random_uuid() as payment_id, gen_random_uuid() as refund_id,
             now() - interval '28 days' + (g::float8 / ${orders}) * interval '27 days' as at,
             (array['pix', 'boleto', 'credit_card'])[1 + g % 3] as method,
             case when g % 5 = 0 then 'BENCHAFF' end as affiliate,
             case when g % 7 = 0 then 'BENCH10' end as coupon,
             (${list(cheap.map((row) => row.id))}::uuid[])[1 + g % ${EVENTS}] as inv1,
             (${list(dear.map((row) => row.id))}::uuid[])[1 + g % ${EVENTS}] as inv2,
             (${list(cheap.map((row) => row.eventId))}::uuid[])[1 + g % ${EVENTS}] as event_id,
             (${list(cheap.map((row) => row.date))}::date[])[1 + g % ${EVENTS}] as day,
             case when g % 7 = 0 then 1000 else 0 end as discount1, case when g % 7 = 0 then 2400 else 0 end as discount2,
             case when g % 3 = 2 then 151 else 0 end as interest1, case when g % 3 = 2 then 349 else 0 end as interest2
        from generate_series(0, ${orders - 1}) g`)
    await tx.execute(sql`
      insert into baskets (id, seller_id, status, expires_at, created_at) select basket_id, ${sellerId}::uuid, 'checked_out', at, at from bench_report_orders`)
    await tx.execute(sql`
      insert into orders (id, seller_id, basket_id, affiliate_code, buyer_email, buyer_name, status, source, coupon, subtotal, discount, interest,
                          total, payment_method, installments, installment_amount, paid_total, refunded_total, created_at, updated_at)
      select order_id, ${sellerId}::uuid, basket_id, affiliate, 'buyer-' || g || '@bench.example.com', 'Buyer ' || g, 'confirmed', 'checkout',
             case when coupon is not null then jsonb_build_object('code', coupon, 'type', 'percent', 'value', 10) end,
             34000, discount1 + discount2, interest1 + interest2, 34000 - discount1 - discount2 + interest1 + interest2, method,
             case when method = 'credit_card' then 3 else 1 end, 34000 - discount1 - discount2 + interest1 + interest2,
             34000 - discount1 - discount2 + interest1 + interest2, case when g % 50 = 0 then 1000 else 0 end, at, at
        from bench_report_orders`)
    await tx.execute(sql`
      insert into order_items (id, order_id, inventory_id, event_id, date, name, quantity, unit_price, discount, total, position)
      select item1, order_id, inv1, event_id, day, 'Pista', 2, 5000, discount1, 10000 - discount1, 0 from bench_report_orders
      union all
      select item2, order_id, inv2, event_id, day, 'Camarote', 2, 12000, discount2, 24000 - discount2, 1 from bench_report_orders`)
    await tx.execute(sql`
      insert into tickets (order_id, order_item_id, inventory_id, identifier, created_at)
      select order_id, item, inv, replace(gen_random_uuid()::text, '-', ''), at
        from bench_report_orders, lateral (values (item1, inv1), (item1, inv1), (item2, inv2), (item2, inv2)) t(item, inv)`)
    await tx.execute(sql`
      insert into payments (id, seller_id, order_id, amount, method, installments, reference, created_at)
      select payment_id, ${sellerId}::uuid, order_id, 34000 - discount1 - discount2 + interest1 + interest2, method,
             case when method = 'credit_card' then 3 else 1 end, 'bench-' || g, at
        from bench_report_orders`)
    await tx.execute(sql`
      insert into refunds (id, seller_id, order_id, amount, reason, status, reference, created_at, done_at)
      select refund_id, ${sellerId}::uuid, order_id, 1000, 'bench', 'done', 'bench-refund-' || g, at + interval '1 hour', at + interval '1 hour'
        from bench_report_orders where g % 50 = 0`)
    await tx.execute(sql`
      insert into transactions (seller_id, order_id, kind, amount, tickets, gross, discount, interest, payment_method, affiliate_code, coupon_code,
                                order_item_id, inventory_id, payment_id, refund_id, created_at)
      select ${sellerId}::uuid, order_id, 'sale', 10000 - discount1 + interest1, 2, 10000, discount1, interest1, method, affiliate, coupon, item1, inv1, null::uuid, null::uuid, at
        from bench_report_orders
      union all
      select ${sellerId}::uuid, order_id, 'sale', 24000 - discount2 + interest2, 2, 24000, discount2, interest2, method, affiliate, coupon, item2, inv2, null, null, at
        from bench_report_orders
      union all
      select ${sellerId}::uuid, order_id, 'payment', 34000 - discount1 - discount2 + interest1 + interest2, 0, 0, 0, 0, method, affiliate, coupon, null, null, payment_id, null, at
        from bench_report_orders
      union all
      select ${sellerId}::uuid, order_id, 'refund', -1000, 0, 0, 0, 0, method, affiliate, coupon, null, null, null, refund_id, at + interval '1 hour'
        from bench_report_orders where g % 50 = 0`)
  })
  // As autovacuum would after such a load: the planner's statistics of what was written.
  await db.execute(sql`analyze transactions, inventories, orders, order_items, tickets, refunds`)
  const [written] = (
    await db.execute<{ tickets: number; rows: number }>(
      sql`select coalesce(sum(tickets), 0)::int as tickets, count(*)::int as rows from transactions where seller_id = ${sellerId}::uuid`,
    )
  ).rows
  return { sellerId, staffToken: await signedInAdmin(app), orders, tickets: Number(written!.tickets), ledgerRows: Number(written!.rows) }
}

export type ReportsSeed = Awaited<ReturnType<typeof seedReports>>
