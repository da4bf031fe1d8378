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

/**
 * What the seated flash sale's correctness checks compare after the run. Every seat's state is
 * read from seat_standings (the one rule for a seat): how many seats the inventory sells, and how
 * many are sold, held, blocked and free; `stranded`, the free seats with no free neighbour in
 * their row (an orphan: what best available must never leave behind when every buyer takes 2 of
 * rows of even length). Against them, the valid tickets (not voided) of the inventory: how many,
 * how many in confirmed orders, how many distinct seats they sit in, how many sit in no seat of
 * the inventory's, and how many of its seats hold exactly one. And the confirmed orders: their
 * number, the tickets their items count, and items whose seat snapshot is not as long as their
 * quantity. `held` is also given by THE definition of held (a count, `heldQuantities`).
 */
export async function seatedSaleState(db: Db, inventoryId: string) {
  const [row] = (
    await db.execute<Record<string, number | string>>(sql`
      with st as (
        select s.*, lag(s.status) over w as left_status, lag(s.ord) over w as left_ord,
               lead(s.status) over w as right_status, lead(s.ord) over w as right_ord
          from seat_standings(${inventoryId}, null, null) as s
        window w as (partition by s.zone_index, s.row_index, s.run order by s.ord)
      ), valid as (
        select t.id, t.seat_id, o.status as order_status
          from tickets t join orders o on o.id = t.order_id
         where t.inventory_id = ${inventoryId} and t.voided_at is null
      )
      select i.capacity, i.sold,
             (select count(*)::int from st) as seats,
             (select count(*)::int from st where st.status = 'sold') as seats_sold,
             (select count(*)::int from st where st.status = 'held') as seats_held,
             (select count(*)::int from st where st.status = 'blocked') as seats_blocked,
             (select count(*)::int from st where st.status = 'free') as seats_free,
             (select count(*)::int from st
               where st.status = 'free'
                 and (st.left_ord is distinct from st.ord - 1 or st.left_status <> 'free')
                 and (st.right_ord is distinct from st.ord + 1 or st.right_status <> 'free')) as stranded,
             (select count(*)::int from valid) as tickets,
             (select count(*)::int from valid where valid.order_status = 'confirmed') as tickets_confirmed,
             (select count(distinct valid.seat_id)::int from valid) as distinct_seats,
             (select count(*)::int from valid where valid.seat_id is null or not exists (select 1 from st where st.seat_id = valid.seat_id)) as off_plan,
             (select count(*)::int from (select st.seat_id from st join valid on valid.seat_id = st.seat_id group by st.seat_id having count(*) = 1) as one) as seats_on_one_ticket,
             (select count(distinct oi.order_id)::int from order_items oi join orders o on o.id = oi.order_id
               where oi.inventory_id = i.id and o.status = 'confirmed') as orders,
             (select coalesce(sum(oi.quantity), 0)::int from order_items oi join orders o on o.id = oi.order_id
               where oi.inventory_id = i.id and o.status = 'confirmed') as ordered,
             (select count(*)::int from order_items oi join orders o on o.id = oi.order_id
               where oi.inventory_id = i.id and o.status = 'confirmed' and coalesce(jsonb_array_length(oi.seats), 0) <> oi.quantity) as items_seats_mismatch
        from inventories i where i.id = ${inventoryId}`)
  ).rows
  if (!row) return null
  const held = (await heldQuantities(db, [inventoryId])).get(inventoryId) ?? 0
  return { ...Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value)])), held } as SeatedSaleState
}

export type SeatedSaleState = Record<
  | 'capacity'
  | 'sold'
  | 'seats'
  | 'seats_sold'
  | 'seats_held'
  | 'seats_blocked'
  | 'seats_free'
  | 'stranded'
  | 'tickets'
  | 'tickets_confirmed'
  | 'distinct_seats'
  | 'off_plan'
  | 'seats_on_one_ticket'
  | 'orders'
  | 'ordered'
  | 'items_seats_mismatch'
  | 'held',
  number
>
