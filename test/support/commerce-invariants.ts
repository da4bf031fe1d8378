import pg from 'pg'

export type CommerceInvariantOptions = {
  /**
   * How long past its `payment_due_at` an order may still be `pending` (API.md 7.9: within 60 s
   * it expires). Null: not judged, for a test that stopped or killed every sweeper on purpose.
   */
  pendingOverdueSeconds?: number | null
}

/**
 * What must hold in the database whatever happened to the requests that wrote it (races,
 * outages, a killed process): read with plain SQL, independently of the application's code.
 * Answers a list of violations, empty when everything holds.
 */
export async function commerceViolations(databaseUrl: string, options: CommerceInvariantOptions = {}): Promise<string[]> {
  const { pendingOverdueSeconds = 60 } = options
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const problems: string[] = []
    const check = async (what: string, query: string) => {
      const { rows } = await client.query(query)
      for (const row of rows.slice(0, 5)) problems.push(`${what}: ${JSON.stringify(row)}`)
    }
    // Every sale is a whole order: sold = the tickets that hold stock (of confirmed orders, and of
    // pending ones, which take it as sold ones do: API.md 7.9), never beyond capacity.
    await check(
      'inventory sold differs from its tickets holding stock',
      `select i.id, i.sold, coalesce(s.n, 0) as in_orders from inventories i
         left join (select t.inventory_id, count(*)::int as n from tickets t join orders o on o.id = t.order_id
                     where o.status in ('confirmed', 'pending') and t.voided_at is null group by t.inventory_id) s on s.inventory_id = i.id
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
    // A confirmed order's tickets may leave it one by one (a void, a refund): the ledger checks below account for each.
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
      `select t.inventory_id, t.seat_id from tickets t where t.seat_id is not null and t.voided_at is null
        group by t.inventory_id, t.seat_id having count(*) > 1
       union all
       select t.inventory_id, t.seat_id from tickets t join basket_items bi on bi.inventory_id = t.inventory_id and t.seat_id = any (bi.seats)
         join baskets b on b.id = bi.basket_id
        where t.voided_at is null and b.status = 'open' and b.expires_at > now()`,
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
    await ledgerViolations(check, pendingOverdueSeconds)
    return problems
  } finally {
    await client.end()
  }
}

/**
 * The money of API.md 7.9: orders awaiting payment, payments, refunds, and the ledger
 * (`transactions`) that must account for every one of them at every moment.
 */
async function ledgerViolations(check: (what: string, query: string) => Promise<void>, pendingOverdueSeconds: number | null) {
  if (pendingOverdueSeconds !== null) {
    await check(
      `order still pending more than ${pendingOverdueSeconds} s after its payment was due`,
      `select o.id, o.payment_due_at from orders o
        where o.status = 'pending' and o.payment_due_at < now() - make_interval(secs => ${Number(pendingOverdueSeconds)})`,
    )
  }
  await check('pending order without a deadline', `select o.id from orders o where o.status = 'pending' and o.payment_due_at is null`)
  // What an order was paid and refunded, three ways: its totals, its payments and refunds, its ledger's money rows.
  await check(
    "order's money differs from its payments, refunds or ledger",
    `select o.id, o.status, o.total, o.paid_total, o.refunded_total, m.paid, m.done, m.promised, m.ledger from orders o
       cross join lateral (
         select (select coalesce(sum(p.amount), 0) from payments p where p.order_id = o.id) as paid,
                (select coalesce(sum(r.amount), 0) from refunds r where r.order_id = o.id and r.status = 'done') as done,
                (select coalesce(sum(r.amount), 0) from refunds r where r.order_id = o.id) as promised,
                (select coalesce(sum(x.amount), 0) from transactions x where x.order_id = o.id and x.kind in ('payment', 'refund')) as ledger) m
      where m.ledger <> o.paid_total - o.refunded_total
         or not (0 <= o.refunded_total and o.refunded_total <= o.paid_total and o.paid_total <= o.total)
         or m.paid <> o.paid_total or m.done <> o.refunded_total or m.promised > o.paid_total`,
  )
  // Money comes only in full (a payment is what is outstanding): a confirmed order is paid, and
  // money on an order that expired is refused, never recorded (it is reactivated, or nothing).
  await check(
    'confirmed order not paid in full, or money on an order pending or expired',
    `select o.id, o.status, o.total, o.paid_total from orders o
      where (o.status = 'confirmed' and o.paid_total <> o.total)
         or (o.status in ('pending', 'expired') and (o.paid_total <> 0 or exists (select 1 from payments p where p.order_id = o.id)))`,
  )
  await check(
    'refund of an order never paid, or naming a ticket that is still valid or not of its order',
    `select r.id, r.order_id, r.status from refunds r join orders o on o.id = r.order_id
      where o.paid_total = 0
         or exists (select 1 from jsonb_array_elements_text(r.tickets) as named(identifier)
                     where not exists (select 1 from tickets t where t.order_id = r.order_id and t.identifier = named.identifier and t.voided_at is not null))`,
  )
  // One money row per payment that moved money and per done refund, of its amount; none for a pending refund.
  await check(
    'payment or refund without exactly its one ledger row',
    `select p.id, 'payment' as kind, p.amount, (select count(*)::int from transactions x where x.payment_id = p.id) as rows from payments p
      where (select count(*) from transactions x where x.payment_id = p.id) <> (case when p.amount > 0 then 1 else 0 end)
         or exists (select 1 from transactions x where x.payment_id = p.id and (x.kind <> 'payment' or x.amount <> p.amount or x.order_id <> p.order_id))
     union all
     select r.id, r.status, r.amount, (select count(*)::int from transactions x where x.refund_id = r.id) from refunds r
      where (select count(*) from transactions x where x.refund_id = r.id) <> (case when r.status = 'done' then 1 else 0 end)
         or exists (select 1 from transactions x where x.refund_id = r.id and (x.kind <> 'refund' or x.amount <> -r.amount or x.order_id <> r.order_id))`,
  )
  // Σ sale + Σ void = the value of its valid tickets, item by item: a confirmed order's item has
  // one sale of its quantity, and its sale and voids count its valid tickets; the value of the
  // tickets voided is their share of the sale (⌊value × voided / quantity⌋ of gross, discount
  // and interest each, so that voids in any order add up to the sale). An order never paid has
  // sold nothing; a cancelled order that had sold has voided it all.
  await check(
    "order item's sale and voids differ from its valid tickets",
    `select oi.id, o.id as order_id, o.status, oi.quantity, l.valid, l.sales, l.sold, l.voided, l.value, l.voids_value from order_items oi
       join orders o on o.id = oi.order_id
       cross join lateral (
         select (select count(*)::int from tickets t where t.order_item_id = oi.id and t.voided_at is null) as valid,
                count(*) filter (where x.kind = 'sale')::int as sales,
                coalesce(sum(x.tickets) filter (where x.kind = 'sale'), 0)::int as sold,
                coalesce(-sum(x.tickets) filter (where x.kind = 'void'), 0)::int as voided,
                count(*) filter (where x.kind = 'void')::int as voids,
                coalesce(sum(x.amount) filter (where x.kind = 'sale'), 0) as value,
                coalesce(sum(x.amount) filter (where x.kind = 'void'), 0) as voids_value,
                max(x.gross) filter (where x.kind = 'sale') as gross,
                max(x.discount) filter (where x.kind = 'sale') as discount,
                max(x.interest) filter (where x.kind = 'sale') as interest,
                bool_or(x.order_id <> oi.order_id) as elsewhere
           from transactions x where x.order_item_id = oi.id) l
      where l.elsewhere
         or (o.status = 'confirmed' and (l.sales <> 1 or l.sold <> oi.quantity or l.sold - l.voided <> l.valid))
         or (o.status in ('pending', 'expired') and (l.sales > 0 or l.voids > 0))
         or (o.status = 'cancelled' and (l.sales > 1 or l.sold <> l.voided or (l.sales = 0 and l.voids > 0)))
         or (l.sales = 1 and l.voids_value <> -(floor(l.gross * l.voided / l.sold) - floor(l.discount * l.voided / l.sold) + floor(l.interest * l.voided / l.sold)))`,
  )
  await check(
    "order's sales differ from its total",
    `select o.id, o.total, s.value from orders o
       join (select x.order_id, sum(x.amount) as value from transactions x where x.kind = 'sale' group by x.order_id) s on s.order_id = o.id
      where s.value <> o.total`,
  )
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
