import { sql } from 'drizzle-orm'
import type { Db } from '../../src/platform/db/database.js'

export type LedgerInvariantOptions = {
  /**
   * How long past its `payment_due_at` an order may still be `pending` (docs/payments.md: within 60 s
   * it expires). Null: not judged, for a test that stopped or killed every sweeper on purpose.
   */
  pendingOverdueSeconds?: number | null
}

/**
 * What the ledger and the orders' money must say at every moment (docs/payments.md), whatever ran:
 * read with plain SQL, independently of the code that wrote it. Answers the violations (up to
 * five rows of each), empty when everything holds. Call it at the end of a test file; the
 * reliability suite's `commerceViolations` calls it too.
 */
export async function ledgerViolations(db: Db, options: LedgerInvariantOptions = {}): Promise<string[]> {
  const { pendingOverdueSeconds = 60 } = options
  const problems: string[] = []
  const check = async (what: string, query: ReturnType<typeof sql>) => {
    const { rows } = await db.execute<Record<string, unknown>>(query)
    for (const row of rows.slice(0, 5)) problems.push(`${what}: ${JSON.stringify(row)}`)
  }

  // Orders awaiting payment: each has its deadline, and is no longer pending soon after it.
  await check('pending order without a deadline', sql`select o.id from orders o where o.status = 'pending' and o.payment_due_at is null`)
  if (pendingOverdueSeconds !== null) {
    await check(
      `order still pending more than ${pendingOverdueSeconds} s after its payment was due`,
      sql`select o.id, o.payment_due_at from orders o
           where o.status = 'pending' and o.payment_due_at < now() - make_interval(secs => ${pendingOverdueSeconds})`,
    )
  }

  // Money: the rows of payments and refunds done add up to what the order says it holds.
  await check(
    'payment and refund rows differ from paid_total − refunded_total',
    sql`select o.id, o.paid_total, o.refunded_total, coalesce(m.sum, 0)::int8 as ledger from orders o
          left join (select order_id, sum(amount) as sum from transactions where kind in ('payment', 'refund') group by order_id) m on m.order_id = o.id
         where coalesce(m.sum, 0) <> o.paid_total - o.refunded_total`,
  )
  await check(
    'paid_total differs from the payments, or refunded_total from the done refunds',
    sql`select o.id, o.paid_total, o.refunded_total,
               (select coalesce(sum(amount), 0) from payments p where p.order_id = o.id)::int8 as payments,
               (select coalesce(sum(amount), 0) from refunds r where r.order_id = o.id and r.status = 'done')::int8 as refunded
          from orders o
         where o.paid_total <> (select coalesce(sum(amount), 0) from payments p where p.order_id = o.id)
            or o.refunded_total <> (select coalesce(sum(amount), 0) from refunds r where r.order_id = o.id and r.status = 'done')`,
  )
  await check(
    'paid beyond the total, or refunds beyond what was paid (refunded_total, or with the pending ones)',
    sql`select o.id, o.total, o.paid_total, o.refunded_total,
               (select coalesce(sum(amount), 0) from refunds r where r.order_id = o.id and r.status = 'pending')::int8 as pending
          from orders o
         where o.paid_total > o.total or o.refunded_total > o.paid_total
            or o.refunded_total + (select coalesce(sum(amount), 0) from refunds r where r.order_id = o.id and r.status = 'pending') > o.paid_total`,
  )
  // Money comes only in full (a payment is what is outstanding): a confirmed order is paid, and
  // money on an order that expired is refused, never recorded (it is reactivated, or nothing).
  await check(
    'confirmed order not paid in full, or money on an order awaiting payment or expired',
    sql`select o.id, o.status, o.total, o.paid_total from orders o
         where (o.status = 'confirmed' and o.paid_total <> o.total)
            or (o.status in ('pending', 'expired') and (o.paid_total <> 0 or exists (select 1 from payments p where p.order_id = o.id)))`,
  )
  await check(
    'refund of an order never paid, or naming a ticket still valid or not of its order',
    sql`select r.id, r.order_id, r.status from refunds r join orders o on o.id = r.order_id
         where o.paid_total = 0
            or exists (select 1 from jsonb_array_elements_text(r.tickets) as named(identifier)
                        where not exists (select 1 from tickets t where t.order_id = r.order_id and t.identifier = named.identifier
                                                                    and t.voided_at is not null))`,
  )
  await check(
    'refund booked other than once when done, or at all while pending',
    sql`select r.id, r.status, r.amount, count(t.id)::int as rows, coalesce(sum(t.amount), 0)::int8 as ledger from refunds r
          left join transactions t on t.refund_id = r.id
         group by r.id
        having count(t.id) <> (case when r.status = 'done' then 1 else 0 end) or coalesce(sum(t.amount), 0) <> (case when r.status = 'done' then -r.amount else 0 end)
            or bool_or(t.kind <> 'refund' or t.order_id <> r.order_id)`,
  )
  await check(
    'payment of money not booked exactly once',
    sql`select p.id, p.amount, count(t.id)::int as rows from payments p left join transactions t on t.payment_id = p.id
         group by p.id having count(t.id) <> (case when p.amount > 0 then 1 else 0 end) or coalesce(sum(t.amount), 0) <> p.amount
                           or bool_or(t.kind <> 'payment' or t.order_id <> p.order_id)`,
  )

  // Tickets: an order never paid sold nothing; a paid one sold each item once, and its voids count the tickets that left.
  await check(
    'sale or void rows of an order awaiting payment or expired unpaid',
    sql`select o.id, o.status, t.kind from orders o join transactions t on t.order_id = o.id
         where o.status in ('pending', 'expired') and t.kind in ('sale', 'void')`,
  )
  await check(
    'item of a confirmed order without exactly one sale row of its quantity, or of any order with more',
    sql`select i.id, i.order_id, o.status, i.quantity, s.sales, s.tickets from order_items i join orders o on o.id = i.order_id
          cross join lateral (select count(*)::int as sales, sum(t.tickets)::int as tickets from transactions t
                               where t.order_item_id = i.id and t.kind = 'sale') s
         where s.sales > 1 or (o.status = 'confirmed' and o.source = 'checkout' and s.sales <> 1) or (s.sales = 1 and s.tickets <> i.quantity)`,
  )
  // A transfer sells nothing (docs/transfers.md): its order has no rows; the sale stays the sender's order's.
  await check(
    'ledger rows of an order of a transfer',
    sql`select o.id, t.kind from orders o join transactions t on t.order_id = o.id where o.source = 'transfer'`,
  )
  await check(
    'void rows of an item never sold, or ledger rows of an item written for another order',
    sql`select v.id, v.order_item_id from transactions v
         where (v.kind = 'void' and not exists (select 1 from transactions s where s.order_item_id = v.order_item_id and s.kind = 'sale'))
            or exists (select 1 from order_items i where i.id = v.order_item_id and i.order_id <> v.order_id)`,
  )
  await check(
    "an item's sale and void tickets differ from its valid tickets",
    sql`select i.id, i.order_id, o.status, s.tickets as ledger,
               (select count(*)::int from tickets k where k.order_item_id = i.id and k.voided_at is null) as valid
          from order_items i join orders o on o.id = i.order_id
          join (select order_item_id, sum(tickets)::int as tickets from transactions where kind in ('sale', 'void') group by order_item_id) s
            on s.order_item_id = i.id
         where s.tickets <> (select count(*) from tickets k where k.order_item_id = i.id and k.voided_at is null)`,
  )
  // Σ sale + Σ void = the value of the valid tickets: the v tickets voided of an item of q are worth
  // ⌊x × v / q⌋ of its sale's gross, discount and interest each, whatever order they left in.
  await check(
    "an item's voids are not its voided tickets' share of its sale",
    sql`select i.id, i.order_id, sale.tickets as sold, v.tickets as voided, sale.amount as value, v.amount as voids from order_items i
          join transactions sale on sale.order_item_id = i.id and sale.kind = 'sale'
          cross join lateral (select coalesce(-sum(t.tickets), 0)::int8 as tickets, coalesce(sum(t.amount), 0)::int8 as amount
                                from transactions t where t.order_item_id = i.id and t.kind = 'void') v
         where v.amount <> -(sale.gross * v.tickets / sale.tickets - sale.discount * v.tickets / sale.tickets + sale.interest * v.tickets / sale.tickets)`,
  )
  await check(
    "a paid order's sale rows differ from its total",
    sql`select o.id, o.total, sum(t.amount)::int8 as sold from orders o join transactions t on t.order_id = o.id and t.kind = 'sale'
         group by o.id having sum(t.amount) <> o.total`,
  )
  return problems
}
