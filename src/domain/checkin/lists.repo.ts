import { and, asc, count, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { checkinLists } from './checkin.table.js'
import type { EventVenue } from '../catalog/events.table.js'

export type ListRow = typeof checkinLists.$inferSelect
export type ListValues = Pick<typeof checkinLists.$inferInsert, 'name' | 'inventoryIds' | 'variants' | 'allowMultipleEntries' | 'allowEntryAfterExit'>

export const insertList = async (db: Db, values: typeof checkinLists.$inferInsert) => (await db.insert(checkinLists).values(values).returning())[0]!

export const findList = async (db: Db, id: string) => (await db.select().from(checkinLists).where(eq(checkinLists.id, id)))[0]

/** Saves a list's settings; `restart` moves it to a new revision, so that its feed starts over. */
export const updateListRow = async (db: Db, id: string, values: ListValues, restart: boolean) =>
  (
    await db
      .update(checkinLists)
      .set({ ...values, updatedAt: sql`now()`, ...(restart ? { revision: sql`${checkinLists.revision} + 1` } : {}) })
      .where(eq(checkinLists.id, id))
      .returning()
  )[0]

export const deleteListRow = async (db: Db, id: string) => (await db.delete(checkinLists).where(eq(checkinLists.id, id)).returning())[0]

/** An event's lists, oldest first. */
export async function listRowsOfEvent(db: Db, eventId: string, paging: Paging): Promise<Page<ListRow>> {
  const where = eq(checkinLists.eventId, eventId)
  const rows = await db
    .select()
    .from(checkinLists)
    .where(where)
    .orderBy(asc(checkinLists.createdAt), asc(checkinLists.id))
    .limit(paging.limit)
    .offset(offsetOf(paging))
  const [total] = await db.select({ n: count() }).from(checkinLists).where(where)
  return { rows, total: total?.n ?? 0 }
}

/** The lists of a seller on the events a device may scan (`eventIds` null: all), newest last; `ids` narrows them. */
export const deviceListRows = (db: Db, sellerId: string, eventIds: readonly string[] | null, ids?: readonly string[]) =>
  db
    .select()
    .from(checkinLists)
    .where(
      and(
        eq(checkinLists.sellerId, sellerId),
        eventIds ? inArray(checkinLists.eventId, [...eventIds]) : undefined,
        ids ? inArray(checkinLists.id, [...ids]) : undefined,
      ),
    )
    .orderBy(asc(checkinLists.createdAt), asc(checkinLists.id))

/** Events of a seller with their title, their venue and the first and last dates of their inventories. */
export async function eventSpans(db: Db, sellerId: string, eventIds: readonly string[]) {
  const { rows } = await db.execute<{ id: string; title: string; venue: EventVenue | null; first_date: string | null; last_date: string | null }>(sql`
    select e.id::text as id, e.title, e.venue, min(i.date)::text as first_date, max(i.date)::text as last_date
      from events e left join inventories i on i.event_id = e.id
     where e.id = any(${sql.param([...eventIds])}::uuid[]) and e.seller_id = ${sellerId}::uuid
     group by e.id, e.title`)
  return rows
}
