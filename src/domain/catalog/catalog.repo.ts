import { and, asc, eq, gte, inArray, lte, ne, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { EventScope } from './availability.js'
import { events, type EVENT_STATUSES } from './events.table.js'
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

/**
 * One page of a seller's events and the total, soonest first (by the first inventory date in
 * the window), then by title. With a date window only events with an inventory in it count.
 */
export async function listEvents(db: Db, query: ListEventsQuery): Promise<{ rows: EventRow[]; total: number }> {
  const { from, to } = query.window
  const inWindow = and(eq(inventories.eventId, events.id), ...inventoryDateConditions(query.window))
  const where = and(
    eq(events.sellerId, query.sellerId),
    eq(events.status, query.status),
    scopeCondition(query.scope),
    query.q ? sql`${events.title} ilike ${`%${escapeLike(query.q)}%`} escape '\\'` : undefined,
    from || to ? sql`exists (select 1 from ${inventories} where ${inWindow})` : undefined,
  )
  const firstDate = sql`(select min(${inventories.date}) from ${inventories} where ${inWindow})`
  const [rows, [count]] = await Promise.all([
    db
      .select()
      .from(events)
      .where(where)
      .orderBy(sql`${firstDate} asc nulls last`, asc(events.title), asc(events.id))
      .limit(query.limit)
      .offset(query.offset),
    db.select({ total: sql<number>`count(*)::int` }).from(events).where(where),
  ])
  return { rows, total: Number(count?.total ?? 0) }
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

/** A seller's inventory rows as committed now, without locking. Other sellers' ids are absent. */
export const readInventories = async (db: Db, sellerId: string, inventoryIds: readonly string[]): Promise<InventoryState[]> =>
  inventoryIds.length === 0 ? [] : inventoriesOf(db, sellerId, inventoryIds)

/**
 * Locks a seller's inventory rows, in id order so that two transactions wanting the same rows
 * queue instead of deadlocking. Other sellers' ids are absent from the answer.
 */
export const lockInventories = async (db: Db, sellerId: string, inventoryIds: readonly string[]): Promise<InventoryState[]> =>
  inventoryIds.length === 0 ? [] : inventoriesOf(db, sellerId, inventoryIds).for('update', { of: inventories })
