import { and, count, desc, eq, inArray, like, or, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { events } from './events.table.js'

export type EventRow = typeof events.$inferSelect
export type NewEventRow = typeof events.$inferInsert
export type EventStatus = EventRow['status']

export const insertEvent = async (db: Db, values: NewEventRow) => (await db.insert(events).values(values).returning())[0]!

export const findEventById = async (db: Db, id: string) => (await db.select().from(events).where(eq(events.id, id)))[0]

/** The event, its row locked until the transaction ends. */
export const lockEventById = async (db: Db, id: string) => (await db.select().from(events).where(eq(events.id, id)).for('no key update'))[0]

export const updateEventRow = async (db: Db, id: string, values: Partial<NewEventRow>) =>
  (
    await db
      .update(events)
      .set({ ...values, updatedAt: sql`now()` })
      .where(eq(events.id, id))
      .returning()
  )[0]

/** A seller's events, newest first. */
export async function listEventRows(db: Db, sellerId: string, filter: { status?: EventStatus | undefined }, paging: Paging): Promise<Page<EventRow>> {
  const where = and(eq(events.sellerId, sellerId), filter.status ? eq(events.status, filter.status) : undefined)
  const rows = await db.select().from(events).where(where).orderBy(desc(events.createdAt), desc(events.id)).limit(paging.limit).offset(offsetOf(paging))
  const [total] = await db.select({ n: count() }).from(events).where(where)
  return { rows, total: total?.n ?? 0 }
}

/** The slugs of this seller that are `base` or start with `base-`. */
export async function slugsLike(db: Db, sellerId: string, base: string): Promise<Set<string>> {
  // `base` holds only [a-z0-9-], none of which LIKE treats specially.
  const rows = await db
    .select({ slug: events.slug })
    .from(events)
    .where(and(eq(events.sellerId, sellerId), or(eq(events.slug, base), like(events.slug, `${base}-%`))))
  return new Set(rows.map((row) => row.slug))
}

export const isSlugTaken = async (db: Db, sellerId: string, slug: string) =>
  (
    await db
      .select({ id: events.id })
      .from(events)
      .where(and(eq(events.sellerId, sellerId), eq(events.slug, slug)))
      .limit(1)
  ).length > 0

/** Which of these ids are events of this seller. */
export async function ownedEventIds(db: Db, sellerId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.sellerId, sellerId), inArray(events.id, [...ids])))
  return new Set(rows.map((row) => row.id))
}
