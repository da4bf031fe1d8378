import { and, asc, eq, gte, inArray, lte, ne, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { EventScope } from '../inventory/availability.js'
import { heldSql } from '../inventory/held.js'
import { events, type EventImage, type EventVenue, type EVENT_STATUSES } from './events.table.js'
import { inventories } from './inventories.table.js'

export type EventRow = typeof events.$inferSelect
export type InventoryRow = typeof inventories.$inferSelect
export type EventStatus = (typeof EVENT_STATUSES)[number]
export type DateWindow = { from?: string | undefined; to?: string | undefined }

/** `%`, `_` and `\` match themselves in a LIKE pattern only when escaped. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

const scopeCondition = (scope: EventScope): SQL | undefined => (scope === null ? undefined : scope.length === 0 ? sql`false` : inArray(events.id, [...scope]))

const inventoryDateConditions = (window: DateWindow) => [
  window.from ? gte(inventories.date, window.from) : undefined,
  window.to ? lte(inventories.date, window.to) : undefined,
]

export type ListEventsQuery = {
  sellerId: string
  scope: EventScope
  status: EventStatus
  q?: string | undefined
  window: DateWindow
  limit: number
  offset: number
}

/** An event of a catalogue page, with the lowest price still on sale (null when nothing is left). */
export type EventPageRow = Pick<EventRow, 'id' | 'title' | 'slug' | 'description' | 'status' | 'integrationId'> & {
  venue: EventVenue | null
  updatedAt: Date
  image: EventImage | null
  lowestPrice: number | null
  /** The dates of its inventories on or after the seller's today (null: none). */
  firstDate: string | null
  lastDate: string | null
}

type EventPageRecord = {
  total: number
  id: string | null
  title: string
  slug: string
  description: string
  status: string
  integration_id: string | null
  updated_at: Date | string
  image: EventImage | null
  venue: EventVenue | null
  lowest_price: number | null
  first_date: string | Date | null
  last_date: string | Date | null
}

/**
 * One page of a seller's events and the total, soonest first (by the first inventory date in
 * the window), then by title and id; with a date window only events with an inventory in it
 * count. Only inventories dated on or after the seller's today (`seller_today`) count, for the
 * order as for the rest. For each event of the page, the lowest price among its inventories in
 * the window that still have tickets available (sql/tickets_available.sql), and the first and last dates
 * of its inventories. All in ONE statement, since the catalogue is
 * the busiest read of the API; it always answers at least one row, which carries the total even
 * when the page is past the end.
 */
export async function listEventPage(db: Db, query: ListEventsQuery): Promise<{ rows: EventPageRow[]; total: number }> {
  const { from, to } = query.window
  const windowed = Boolean(from || to)
  // Conditions on an inventory aliased `i`.
  const inWindow = sql.join([from ? sql` and i.date >= ${from}` : undefined, to ? sql` and i.date <= ${to}` : undefined].filter((c) => c !== undefined))
  const scope = query.scope === null ? sql`` : sql` and e.id = any(${sql.param([...query.scope])}::uuid[])`
  const title = query.q ? sql` and e.title ilike ${`%${escapeLike(query.q)}%`} escape '\\'` : sql``
  const { rows } = await db.execute<EventPageRecord>(sql`
    with today as (select seller_today(${query.sellerId}) as d),
    matching as (
      select e.id, e.title, e.slug, e.description, e.status, e.integration_id, e.updated_at, e.images, e.venue,
             (select min(i.date) from inventories i where i.event_id = e.id and i.date >= today.d${inWindow}) as first_date
        from events e, today
       where e.seller_id = ${query.sellerId} and e.status = ${query.status}${scope}${title}
    ),
    counted as (select * from matching${windowed ? sql` where first_date is not null` : sql``}),
    page as (select * from counted order by first_date asc nulls last, title asc, id asc limit ${query.limit} offset ${query.offset})
    select (select count(*)::int from counted) as total,
           p.id, p.title, p.slug, p.description, p.status, p.integration_id, p.updated_at, p.images -> 0 as image, p.venue,
           (select min(i.price) from inventories i
             where i.event_id = p.id and i.date >= today.d${inWindow} and tickets_available(i.capacity - i.seats_blocked, i.sold, ${heldSql(sql`i.id`)}) > 0
               and not (select q.queued from tickets_queued(i.id) as q)) as lowest_price,
           (select min(i.date)::text from inventories i where i.event_id = p.id and i.date >= today.d) as first_date,
           (select max(i.date)::text from inventories i where i.event_id = p.id and i.date >= today.d) as last_date
      from (select 1) as one
      cross join today
      left join page p on true
     order by p.first_date asc nulls last, p.title asc, p.id asc`)
  const total = Number(rows[0]?.total ?? 0)
  const page = rows.filter((row): row is EventPageRecord & { id: string } => row.id !== null)
  return {
    total,
    rows: page.map((row) => ({
      id: row.id,
      title: row.title,
      slug: row.slug,
      description: row.description,
      status: row.status as EventStatus,
      integrationId: row.integration_id,
      updatedAt: new Date(row.updated_at),
      image: row.image ?? null,
      venue: row.venue ?? null,
      lowestPrice: row.lowest_price === null ? null : Number(row.lowest_price),
      firstDate: dateOf(row.first_date),
      lastDate: dateOf(row.last_date),
    })),
  }
}

/** A date column as the API writes it, whichever way the driver answered it. */
const dateOf = (value: string | Date | null): string | null =>
  value === null ? null : typeof value === 'string' ? value.slice(0, 10) : value.toISOString().slice(0, 10)

/** The inventories of these events, optionally within a date window, by date, show time (unsaid last), then price. */
export const listInventoriesOfEvents = (db: Db, eventIds: readonly string[], window: DateWindow = {}) =>
  eventIds.length === 0
    ? Promise.resolve([] as InventoryRow[])
    : db
        .select()
        .from(inventories)
        .where(and(inArray(inventories.eventId, [...eventIds]), ...inventoryDateConditions(window)))
        .orderBy(asc(inventories.date), asc(inventories.time), asc(inventories.price), asc(inventories.name), asc(inventories.id))

/** A seller's event by id or slug, if the caller may see it: never a draft, only in the affiliate's scope. */
export async function findVisibleEvent(db: Db, sellerId: string, scope: EventScope, idOrSlug: { id: string } | { slug: string }) {
  const [row] = await db
    .select()
    .from(events)
    .where(
      and(
        eq(events.sellerId, sellerId),
        ne(events.status, 'draft'),
        scopeCondition(scope),
        'id' in idOrSlug ? eq(events.id, idOrSlug.id) : eq(events.slug, idOrSlug.slug),
      ),
    )
  return row
}
