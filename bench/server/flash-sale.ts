import { sql } from 'drizzle-orm'
import { heldQuantities } from '../../src/domain/inventory/held.js'
import type { Db } from '../../src/platform/db/database.js'

/**
 * The flash sale's limit: the one statement that any sale of tickets from one inventory has to
 * run, on its own, in its own implicit transaction, through the same pool. Nothing else
 * (no basket, no hold, no order, no audit) is done. Answers whether the tickets were sold.
 */
export async function rawSell(db: Db, inventoryId: string, quantity: number): Promise<boolean> {
  const result = await db.execute(
    sql`update inventories set sold = sold + ${quantity} where id = ${inventoryId} and sold + ${quantity} <= capacity returning id`,
  )
  return result.rows.length > 0
}

/**
 * What the flash sale's correctness checks compare after the run: capacity, `sold`, tickets held
 * now (by THE definition of held), and what the confirmed orders hold for this inventory.
 */
export async function saleState(db: Db, inventoryId: string) {
  const [row] = (
    await db.execute<{ capacity: number; sold: number; ordered: number; tickets: number; orders: number }>(sql`
      select i.capacity, i.sold,
             (select coalesce(sum(oi.quantity), 0)::int from order_items oi join orders o on o.id = oi.order_id
               where oi.inventory_id = i.id and o.status = 'confirmed') as ordered,
             (select count(*)::int from tickets t join orders o on o.id = t.order_id
               where t.inventory_id = i.id and o.status = 'confirmed' and t.voided_at is null) as tickets,
             (select count(distinct oi.order_id)::int from order_items oi join orders o on o.id = oi.order_id
               where oi.inventory_id = i.id and o.status = 'confirmed') as orders
        from inventories i where i.id = ${inventoryId}`)
  ).rows
  if (!row) return null
  const held = (await heldQuantities(db, [inventoryId])).get(inventoryId) ?? 0
  return {
    capacity: Number(row.capacity),
    sold: Number(row.sold),
    held,
    ordered: Number(row.ordered),
    tickets: Number(row.tickets),
    orders: Number(row.orders),
  }
}

/** An endpoint's deliveries by status: `{pending, delivered, failed}`. */
export async function webhookBacklog(db: Db, endpointId: string) {
  const rows = (
    await db.execute<{ status: string; n: number }>(
      sql`select status, count(*)::int as n from webhook_deliveries where endpoint_id = ${endpointId} group by status`,
    )
  ).rows
  const counts = { pending: 0, delivered: 0, failed: 0 } as Record<string, number>
  for (const row of rows) counts[row.status] = Number(row.n)
  return counts
}
