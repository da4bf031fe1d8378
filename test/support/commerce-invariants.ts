import pg from 'pg'
import { openDatabase } from '../../src/platform/db/database.js'
import { ledgerViolations, type LedgerInvariantOptions } from './ledger-invariants.js'

/**
 * What must hold in the database whatever happened to the requests that wrote it (races,
 * outages, a killed process): read with plain SQL, independently of the application's code.
 * Answers a list of violations, empty when everything holds.
 */
export async function commerceViolations(databaseUrl: string, options: LedgerInvariantOptions = {}): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const problems: string[] = []
    const check = async (what: string, query: string) => {
      const { rows } = await client.query(query)
      for (const row of rows.slice(0, 5)) problems.push(`${what}: ${JSON.stringify(row)}`)
    }
    // Every sale is a whole order: sold = the tickets that hold stock (of confirmed orders, and of
    // pending ones, which take it as sold ones do: docs/payments.md), never beyond capacity. A ticket
    // given away still holds its sale's stock; the one its recipient got holds none (docs/transfers.md).
    await check(
      'inventory sold differs from its tickets holding stock',
      `select i.id, i.sold, coalesce(s.n, 0) as in_orders from inventories i
         left join (select t.inventory_id, count(*)::int as n from tickets t join orders o on o.id = t.order_id
                     where o.status in ('confirmed', 'pending') and o.source = 'checkout' and t.voided_at is null group by t.inventory_id) s on s.inventory_id = i.id
        where i.sold <> coalesce(s.n, 0)`,
    )
    await check(
      'inventory sold and held beyond capacity',
      `select i.id, i.capacity, i.sold, coalesce(h.n, 0) as held from inventories i
         left join (select bi.inventory_id, sum(bi.quantity)::int as n from basket_items bi join baskets b on b.id = bi.basket_id
                     where b.status = 'open' and b.expires_at > now() group by bi.inventory_id) h on h.inventory_id = i.id
        where i.sold < 0 or i.sold + coalesce(h.n, 0) > i.capacity`,
    )
    await check('order without items', `select o.id from orders o where not exists (select 1 from order_items oi where oi.order_id = o.id)`)
    await check(
      'order whose tickets are not one per unit',
      `select o.id, (select coalesce(sum(quantity), 0)::int from order_items where order_id = o.id) as units,
              (select count(*)::int from tickets where order_id = o.id) as tickets
         from orders o
        where (select coalesce(sum(quantity), 0) from order_items where order_id = o.id) <> (select count(*) from tickets where order_id = o.id)`,
    )
    await check(
      'order total differs from its items',
      `select o.id from orders o where o.subtotal <> (select coalesce(sum(unit_price * quantity), 0) from order_items where order_id = o.id)
                                   or o.total <> o.subtotal - o.discount + o.interest`,
    )
    await check(
      "order items' totals do not add up to the order's subtotal − discount",
      `select o.id from orders o where o.subtotal - o.discount <> (select coalesce(sum(total), 0) from order_items where order_id = o.id)
                                   or exists (select 1 from order_items where order_id = o.id and (total < 0 or total <> unit_price * quantity - discount))`,
    )
    // A confirmed order's tickets may leave it one by one (a void, a refund): the ledger's checks account for each.
    await check(
      'cancelled or expired order with live tickets',
      `select o.id, o.status from orders o join tickets t on t.order_id = o.id
        where o.status in ('cancelled', 'expired') and t.voided_at is null`,
    )
    await check(
      'basket checked out without an order, or ordered and still open',
      `select b.id, b.status from baskets b
        where (b.status = 'checked_out') <> exists (select 1 from orders o where o.basket_id = b.id)`,
    )
    await check(
      'coupon uses differ from its redemptions, or exceed its limit',
      `select c.id, c.uses, c.max_uses, (select count(*)::int from coupon_redemptions r where r.coupon_id = c.id) as redeemed from coupons c
        where c.uses <> (select count(*) from coupon_redemptions r where r.coupon_id = c.id) or (c.max_uses is not null and c.uses > c.max_uses)`,
    )
    await check(
      'coupon redeemed by one customer beyond its per-customer limit',
      `select r.coupon_id, r.customer_id, count(*)::int as n from coupon_redemptions r join coupons c on c.id = r.coupon_id
        where c.max_uses_per_customer is not null group by r.coupon_id, r.customer_id, c.max_uses_per_customer having count(*) > c.max_uses_per_customer`,
    )
    // Reserved seating: one holder per seat, the seats as many as the counts, none of another inventory.
    await check(
      'seat held by two open baskets at once',
      `select bi.inventory_id, u.seat, count(*)::int as holders from basket_items bi join baskets b on b.id = bi.basket_id
         cross join unnest(bi.seats) as u(seat)
        where b.status = 'open' and b.expires_at > now() group by bi.inventory_id, u.seat having count(*) > 1`,
    )
    await check(
      'seat on two valid tickets, or held by an open basket while sold',
      `select t.inventory_id, t.seat_id from tickets t where t.seat_id is not null and t.voided_at is null and t.transferred_at is null
        group by t.inventory_id, t.seat_id having count(*) > 1
       union all
       select t.inventory_id, t.seat_id from tickets t join basket_items bi on bi.inventory_id = t.inventory_id and t.seat_id = any (bi.seats)
         join baskets b on b.id = bi.basket_id
        where t.voided_at is null and t.transferred_at is null and b.status = 'open' and b.expires_at > now()`,
    )
    await check(
      'seated item or ticket without its seats, or with seats not of its inventory',
      `select bi.id from basket_items bi join inventories i on i.id = bi.inventory_id
        where (i.seating_plan_id is not null and bi.seats is not null and cardinality(bi.seats) <> bi.quantity)
           or exists (select 1 from unnest(bi.seats) as u(seat) where not exists (
                select 1 from seating_plan_seats ps where ps.plan_id = i.seating_plan_id and ps.category = i.seating_category and ps.seat_id = u.seat))
       union all
       select t.id from tickets t join inventories i on i.id = t.inventory_id
        where (i.seating_plan_id is null) <> (t.seat_id is null)`,
    )
    await check(
      'blocked seat held or sold, or blocked seats miscounted',
      `select i.id, i.seats_blocked, (select count(*)::int from seat_blocks sb where sb.inventory_id = i.id) as blocked from inventories i
        where i.seats_blocked <> (select count(*) from seat_blocks sb where sb.inventory_id = i.id)
           or exists (select 1 from seat_blocks sb join tickets t on t.inventory_id = sb.inventory_id and t.seat_id = sb.seat_id and t.voided_at is null
                       where sb.inventory_id = i.id)`,
    )
    return [...problems, ...(await ledgerViolationsAt(databaseUrl, options))]
  } finally {
    await client.end()
  }
}

/** One SQL query on a database, through a connection of its own. */
export async function queryDatabase<T extends Record<string, unknown>>(databaseUrl: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return (await client.query<T>(text, values)).rows
  } finally {
    await client.end()
  }
}

/** The ledger's invariants (ledger-invariants.ts) over a database of its own URL, with time for a large one on a busy machine. */
async function ledgerViolationsAt(databaseUrl: string, options: LedgerInvariantOptions): Promise<string[]> {
  const database = await openDatabase({ url: databaseUrl, poolMax: 1, statementTimeoutMs: 60_000, connectTimeoutMs: 30_000 })
  try {
    return await ledgerViolations(database.db, options)
  } finally {
    await database.close()
  }
}
