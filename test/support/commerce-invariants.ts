import pg from 'pg'

/**
 * What must hold in the database whatever happened to the requests that wrote it (races,
 * outages, a killed process): read with plain SQL, independently of the application's code.
 * Answers a list of violations, empty when everything holds.
 */
export async function commerceViolations(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const problems: string[] = []
    const check = async (what: string, query: string) => {
      const { rows } = await client.query(query)
      for (const row of rows.slice(0, 5)) problems.push(`${what}: ${JSON.stringify(row)}`)
    }
    // Every sale is a whole order: sold = what confirmed orders hold, never beyond capacity.
    await check(
      'inventory sold differs from its confirmed order items',
      `select i.id, i.sold, coalesce(s.n, 0) as in_orders from inventories i
         left join (select oi.inventory_id, sum(oi.quantity)::int as n from order_items oi join orders o on o.id = oi.order_id
                     where o.status = 'confirmed' group by oi.inventory_id) s on s.inventory_id = i.id
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
    await check(
      'confirmed order with voided tickets, or cancelled with live ones',
      `select o.id, o.status from orders o join tickets t on t.order_id = o.id
        where (o.status = 'confirmed' and t.voided_at is not null) or (o.status = 'cancelled' and t.voided_at is null)`,
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
    return problems
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
