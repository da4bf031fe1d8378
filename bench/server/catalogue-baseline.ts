import { sql } from 'drizzle-orm'
import { heldSql } from '../../src/domain/inventory/held.js'
import type { Db } from '../../src/platform/db/database.js'

/**
 * The catalogue benchmark's baseline: everything `GET /stf/v1/events` asks the database for
 * (a seller's published events, soonest first by their first inventory date, then title and id;
 * the page's rows; the total; for each event the lowest price among its inventories with
 * tickets left, where left is tickets_available(capacity, sold, held), as the inventory module defines them) in ONE
 * hand-written statement, sent as plain text through the same pool.
 *
 * What it leaves out, and the real route pays for: Basic authentication and the affiliate
 * lookup, query-string validation, the ORM's query building and row mapping, the price label,
 * and the response schema (the rows go out through plain JSON.stringify).
 */
export async function catalogueBaseline(db: Db, sellerId: string, page: number, limit: number) {
  const result = await db.execute<{
    id: string
    title: string
    slug: string
    description: string
    status: string
    integration_id: string | null
    updated_at: string
    image: unknown
    price: number | null
    total: number
  }>(sql`
    with page as (
      select e.id, e.title, e.slug, e.description, e.status, e.integration_id, e.updated_at, e.images -> 0 as image,
             (select min(i.date) from inventories i where i.event_id = e.id) as first_date
        from events e
       where e.seller_id = ${sellerId} and e.status = 'published'
       order by first_date asc nulls last, e.title asc, e.id asc
       limit ${limit} offset ${(page - 1) * limit}
    )
    select p.id, p.title, p.slug, p.description, p.status, p.integration_id, p.updated_at, p.image,
           (select min(i.price)
              from inventories i
             where i.event_id = p.id
               and tickets_available(i.capacity, i.sold, ${heldSql(sql`i.id`)}) > 0) as price,
           (select count(*)::int from events e where e.seller_id = ${sellerId} and e.status = 'published') as total
      from page p
     order by p.first_date asc nulls last, p.title asc, p.id asc`)
  const rows = result.rows
  return { data: rows, meta: { count: rows.length, limit, page, total: rows[0]?.total ?? 0 } }
}
