import { sql } from 'drizzle-orm'
import type { Db } from '../../src/platform/db/database.js'

/**
 * What the ledger and the orders' money must say at every moment (API.md 7.9), whatever ran:
 * read with plain SQL, independently of the code that wrote it. Answers the violations (up to
 * five rows of each), empty when everything holds. Call it at the end of a test file.
 */
export async function ledgerViolations(db: Db): Promise<string[]> {
  const problems: string[] = []
  const check = async (what: string, query: ReturnType<typeof sql>) => {
    const { rows } = await db.execute<Record<string, unknown>>(query)
    for (const row of rows.slice(0, 5)) problems.push(`${what}: ${JSON.stringify(row)}`)
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
    'refunds beyond what was paid (refunded_total, or with the pending ones)',
    sql`select o.id, o.paid_total, o.refunded_total,
               (select coalesce(sum(amount), 0) from refunds r where r.order_id = o.id and r.status = 'pending')::int8 as pending
          from orders o
         where o.refunded_total > o.paid_total
            or o.refunded_total + (select coalesce(sum(amount), 0) from refunds r where r.order_id = o.id and r.status = 'pending') > o.paid_total`,
  )
  await check(
    'refund booked other than once when done, or at all while pending',
    sql`select r.id, r.status, r.amount, count(t.id)::int as rows, coalesce(sum(t.amount), 0)::int8 as ledger from refunds r
          left join transactions t on t.refund_id = r.id
         group by r.id
        having count(t.id) <> (case when r.status = 'done' then 1 else 0 end) or coalesce(sum(t.amount), 0) <> (case when r.status = 'done' then -r.amount else 0 end)`,
  )
  await check(
    'payment of money not booked exactly once',
    sql`select p.id, p.amount, count(t.id)::int as rows from payments p left join transactions t on t.payment_id = p.id
         group by p.id having count(t.id) <> (case when p.amount > 0 then 1 else 0 end) or coalesce(sum(t.amount), 0) <> p.amount`,
  )

  // Tickets: an order never paid sold nothing; a paid one sold each item once, and its voids count the tickets that left.
  await check(
    'sale or void rows of an order awaiting payment or expired unpaid',
    sql`select o.id, o.status, t.kind from orders o join transactions t on t.order_id = o.id
         where o.status in ('pending', 'expired') and t.kind in ('sale', 'void')`,
  )
  await check(
    'item of a confirmed order without exactly one sale row',
    sql`select i.id, i.order_id, (select count(*)::int from transactions t where t.order_item_id = i.id and t.kind = 'sale') as sales
          from order_items i join orders o on o.id = i.order_id
         where o.status = 'confirmed' and (select count(*) from transactions t where t.order_item_id = i.id and t.kind = 'sale') <> 1`,
  )
  await check(
    'void rows of an item never sold',
    sql`select v.id, v.order_item_id from transactions v
         where v.kind = 'void' and not exists (select 1 from transactions s where s.order_item_id = v.order_item_id and s.kind = 'sale')`,
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
  await check(
    "an item's sale and void amounts are not its sale with every ticket valid, nor 0 with none",
    sql`select i.id, i.order_id, s.amount, s.tickets, sale.amount as sold from order_items i
          join (select order_item_id, sum(amount)::int8 as amount, sum(tickets)::int as tickets from transactions
                 where kind in ('sale', 'void') group by order_item_id) s on s.order_item_id = i.id
          join transactions sale on sale.order_item_id = i.id and sale.kind = 'sale'
         where (s.tickets = 0 and s.amount <> 0) or (s.tickets = sale.tickets and s.amount <> sale.amount)
            or s.amount < 0 or s.amount > sale.amount`,
  )
  await check(
    "a paid order's sale rows differ from its total",
    sql`select o.id, o.total, sum(t.amount)::int8 as sold from orders o join transactions t on t.order_id = o.id and t.kind = 'sale'
         group by o.id having sum(t.amount) <> o.total`,
  )
  return problems
}
