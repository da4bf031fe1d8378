import { sql } from 'drizzle-orm'
import type { Db } from '../../src/platform/db/database.js'

const TICKETS_PER_ORDER = 10
const BATCH_ORDERS = 500

/**
 * The exports row's data (also the reliability test's): an event of the seller with one
 * inventory and `tickets` sold tickets, 10 per paid order, written in bulk SQL (a checkout per
 * order would take minutes). Buyers' names and holders are plain text; the ledger is not written
 * (the row exports tickets). Answers the event.
 */
export async function seedExportTickets(db: Db, options: { sellerId: string; tickets: number }): Promise<{ eventId: string; tickets: number }> {
  const orders = Math.max(1, Math.ceil(options.tickets / TICKETS_PER_ORDER))
  const tickets = orders * TICKETS_PER_ORDER
  const suffix = Date.now().toString(36)
  return db.transaction(async (tx) => {
    const event = await tx.execute<{ id: string }>(sql`
      insert into events (seller_id, title, slug, status, source)
      values (${options.sellerId}::uuid, 'Bench export', ${`bench-export-${suffix}`}, 'published', 'bench') returning id`)
    const eventId = event.rows[0]!.id
    const inventory = await tx.execute<{ id: string }>(sql`
      insert into inventories (seller_id, event_id, date, name, price, capacity, sold)
      values (${options.sellerId}::uuid, ${eventId}::uuid, current_date + 30, 'General', 5000, ${tickets}, ${tickets}) returning id`)
    const inventoryId = inventory.rows[0]!.id
    // In batches: each statement well within the statement timeout.
    for (let done = 0; done < orders; done += BATCH_ORDERS) {
      await insertOrders(tx, options.sellerId, eventId, inventoryId, Math.min(BATCH_ORDERS, orders - done))
    }
    return { eventId, tickets }
  })
}

async function insertOrders(tx: Db, sellerId: string, eventId: string, inventoryId: string, orders: number) {
  await tx.execute(sql`
      with b as (
        insert into baskets (seller_id, status, expires_at)
        select ${sellerId}::uuid, 'checked_out', now() from generate_series(1, ${orders}) returning id
      ), o as (
        insert into orders (seller_id, basket_id, buyer_email, buyer_name, status, subtotal, discount, interest, total,
                            payment_method, installments, installment_amount, paid_total)
        select ${sellerId}::uuid, b.id, 'buyer-' || row_number() over () || '@bench.example.com', 'Buyer ' || row_number() over (),
               'confirmed', ${5000 * TICKETS_PER_ORDER}, 0, 0, ${5000 * TICKETS_PER_ORDER}, 'pix', 1, ${5000 * TICKETS_PER_ORDER}, ${5000 * TICKETS_PER_ORDER}
          from b returning id
      ), i as (
        insert into order_items (order_id, inventory_id, event_id, date, name, quantity, unit_price, discount, total, position)
        select o.id, ${inventoryId}::uuid, ${eventId}::uuid, current_date + 30, 'General', ${TICKETS_PER_ORDER}, 5000, 0, ${5000 * TICKETS_PER_ORDER}, 0
          from o returning id, order_id
      )
      insert into tickets (order_id, order_item_id, inventory_id, identifier, holder_name)
      select i.order_id, i.id, ${inventoryId}::uuid, upper(replace(gen_random_uuid()::text, '-', '')), 'Holder ' || n
        from i cross join generate_series(1, ${TICKETS_PER_ORDER}) n`)
}
