import { and, asc, eq, gte, inArray, lte, ne, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { errorDetail, sqlState } from '../../platform/db/errors.js'
import type { EventScope } from './availability.js'
import { firstReleaseSql, heldSql } from '../baskets/holds.repo.js'
import { events, type EventImage, type EVENT_STATUSES } from './events.table.js'
import { inventories } from './inventories.table.js'

export type EventRow = typeof events.$inferSelect
export type InventoryRow = typeof inventories.$inferSelect
export type EventStatus = (typeof EVENT_STATUSES)[number]
export type DateWindow = { from?: string | undefined; to?: string | undefined }

/** `%`, `_` and `\` match themselves in a LIKE pattern only when escaped. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

const scopeCondition = (scope: EventScope): SQL | undefined =>
  scope === null ? undefined : scope.length === 0 ? sql`false` : inArray(events.id, [...scope])

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
  updatedAt: Date
  image: EventImage | null
  lowestPrice: number | null
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
  lowest_price: number | null
}

/**
 * One page of a seller's events and the total, soonest first (by the first inventory date in
 * the window), then by title and id; with a date window only events with an inventory in it
 * count. For each event of the page, the lowest price among its inventories in the window that
 * still have tickets left (capacity − sold − held). All in ONE statement, since the catalogue is
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
    with matching as (
      select e.id, e.title, e.slug, e.description, e.status, e.integration_id, e.updated_at, e.images,
             (select min(i.date) from inventories i where i.event_id = e.id${inWindow}) as first_date
        from events e
       where e.seller_id = ${query.sellerId} and e.status = ${query.status}${scope}${title}
    ),
    counted as (select * from matching${windowed ? sql` where first_date is not null` : sql``}),
    page as (select * from counted order by first_date asc nulls last, title asc, id asc limit ${query.limit} offset ${query.offset})
    select (select count(*)::int from counted) as total,
           p.id, p.title, p.slug, p.description, p.status, p.integration_id, p.updated_at, p.images -> 0 as image,
           (select min(i.price) from inventories i
             where i.event_id = p.id${inWindow} and i.capacity - i.sold - ${heldSql(sql`i.id`)} > 0) as lowest_price
      from (select 1) as one
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
      lowestPrice: row.lowest_price === null ? null : Number(row.lowest_price),
    })),
  }
}

/** The inventories of these events, optionally within a date window, by date then price. */
export const listInventoriesOfEvents = (db: Db, eventIds: readonly string[], window: DateWindow = {}) =>
  eventIds.length === 0
    ? Promise.resolve([] as InventoryRow[])
    : db
        .select()
        .from(inventories)
        .where(and(inArray(inventories.eventId, [...eventIds]), ...inventoryDateConditions(window)))
        .orderBy(asc(inventories.date), asc(inventories.price), asc(inventories.name), asc(inventories.id))

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

export type InventoryState = {
  id: string
  eventId: string
  date: string
  name: string
  capacity: number
  sold: number
  price: number
  eventStatus: string
}

const inventoryState = {
  id: inventories.id,
  eventId: inventories.eventId,
  date: inventories.date,
  name: inventories.name,
  capacity: inventories.capacity,
  sold: inventories.sold,
  price: inventories.price,
  eventStatus: events.status,
}

const inventoriesOf = (db: Db, sellerId: string, inventoryIds: readonly string[]) =>
  db
    .select(inventoryState)
    .from(inventories)
    .innerJoin(events, eq(events.id, inventories.eventId))
    .where(and(inArray(inventories.id, [...inventoryIds]), eq(inventories.sellerId, sellerId)))
    .orderBy(asc(inventories.id))

/** An inventory's state with the tickets other baskets hold on it, as a hold is judged. */
export type HeldInventoryState = InventoryState & { held: number }

/** `HeldInventoryState` read without locks, with the milliseconds until the first hold it counts runs out (null: none). */
export type HeldInventoryReading = HeldInventoryState & { firstReleaseMs: number | null }

const prepareReadWithHeld = (db: Db) =>
  db
    .select({
      ...inventoryState,
      held: heldSql(sql`${inventories.id}`, sql`${sql.placeholder('exceptBasketId')}`),
      firstReleaseMs: firstReleaseSql(sql`${inventories.id}`),
    })
    .from(inventories)
    .innerJoin(events, eq(events.id, inventories.eventId))
    .where(and(sql`${inventories.id} = any(${sql.placeholder('ids')}::uuid[])`, eq(inventories.sellerId, sql.placeholder('sellerId'))))
    .prepare('read_inventories_with_held')

const readWithHeld = new WeakMap<Db, ReturnType<typeof prepareReadWithHeld>>()

/**
 * A seller's inventory rows as committed now, without locking, each with the tickets held by
 * open baskets other than `exceptBasketId`: one prepared statement, built once per database
 * handle (it runs on every basket change, and on every refusal of a rush). Other sellers' ids
 * are absent. `firstReleaseMs` counts every basket's holds, whatever `exceptBasketId` is.
 */
export async function readInventoriesWithHeld(
  db: Db,
  sellerId: string,
  inventoryIds: readonly string[],
  exceptBasketId?: string,
): Promise<HeldInventoryReading[]> {
  if (inventoryIds.length === 0) return []
  let query = readWithHeld.get(db)
  if (!query) readWithHeld.set(db, (query = prepareReadWithHeld(db)))
  return query.execute({ ids: [...inventoryIds], sellerId, exceptBasketId: exceptBasketId ?? null })
}

type LockedRecord = {
  id: string
  event_id: string
  date: string
  name: string
  capacity: number
  sold: number
  price: number
  event_status: string
  held: number
  /** Only in `take_tickets`' rows. */
  first_release_ms?: number | null
}

/**
 * `lockInventories` and the tickets held on each by open baskets other than `exceptBasketId`,
 * counted once the locks are granted: ONE round trip (the database function of migration 0008),
 * because every buyer of a sought-after inventory waits while these locks are held.
 */
export async function lockInventoriesWithHeld(
  db: Db,
  sellerId: string,
  inventoryIds: readonly string[],
  exceptBasketId?: string,
): Promise<HeldInventoryState[]> {
  if (inventoryIds.length === 0) return []
  const { rows } = await db.execute<LockedRecord>(
    sql`select * from lock_inventories_with_held(${sellerId}, ${sql.param([...inventoryIds])}::uuid[], ${exceptBasketId ?? null}::uuid)`,
  )
  return rows.map(fromLockedRecord)
}

export type TakeTickets = {
  sellerId: string
  /** The basket the tickets are for: its own holds do not count against it. */
  basketId: string
  /** Tickets wanted, by inventory id. */
  quantities: ReadonlyMap<string, number>
  /** Events the caller may sell (null: all of the seller's). */
  scope: EventScope
  /** The unit prices the caller priced with, by inventory id: a changed one refuses. Null: any. */
  prices: ReadonlyMap<string, number> | null
  /** Add the quantities to `sold` (a checkout), or only judge them (a hold). */
  sell: boolean
}

/**
 * The hold or the sale, decided under the inventory locks by the database function of migration
 * 0010, which answers the rows as they were before a sale, or raises (SQLSTATE BX409, see
 * `refusedRows`) and changes nothing when anything does not fit. ONE statement that refuses by
 * itself: it can end a transaction in the COMMIT's own round trip.
 */
export const takeTicketsQuery = (take: TakeTickets) => {
  const ids = [...take.quantities.keys()]
  return sql`select * from take_tickets(${take.sellerId}::uuid, ${sql.param(ids)}::uuid[], ${sql.param(ids.map((id) => take.quantities.get(id)!))}::int[], ${take.basketId}::uuid, ${take.scope === null ? null : sql.param([...take.scope])}::uuid[], ${take.prices === null ? null : sql.param(ids.map((id) => take.prices!.get(id) ?? null))}::int[], ${take.sell})`
}

export const readTakenRows = (rows: Record<string, unknown>[]): HeldInventoryReading[] =>
  rows.map((row) => ({ ...fromLockedRecord(row as LockedRecord), firstReleaseMs: (row as LockedRecord).first_release_ms ?? null }))

/** The rows a refused `take_tickets` judged, from its error; undefined for any other error. */
export function refusedRows(error: unknown): HeldInventoryReading[] | undefined {
  if (sqlState(error) !== TICKETS_DO_NOT_FIT) return undefined
  const detail = errorDetail(error)
  return detail === undefined ? undefined : (JSON.parse(detail) as HeldInventoryReading[])
}

const TICKETS_DO_NOT_FIT = 'BX409'

const fromLockedRecord = (row: LockedRecord): HeldInventoryState => ({
  id: row.id,
  eventId: row.event_id,
  date: row.date,
  name: row.name,
  capacity: Number(row.capacity),
  sold: Number(row.sold),
  price: Number(row.price),
  eventStatus: row.event_status,
  held: Number(row.held),
})

/**
 * Locks a seller's inventory rows, in id order so that two transactions wanting the same rows
 * queue instead of deadlocking. Other sellers' ids are absent from the answer. NO KEY UPDATE,
 * like the lock functions of migrations 0008–0009: it excludes every other hold and sale of
 * these rows, yet lets rows that merely reference them (order items, tickets, basket items) be
 * written meanwhile, as checkouts and new baskets do before they lock.
 */
export const lockInventories = async (db: Db, sellerId: string, inventoryIds: readonly string[]): Promise<InventoryState[]> =>
  inventoryIds.length === 0 ? [] : inventoriesOf(db, sellerId, inventoryIds).for('no key update', { of: inventories })
