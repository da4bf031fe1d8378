import { and, asc, count, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { inventories } from './inventories.table.js'

export type InventoryRow = typeof inventories.$inferSelect
export type NewInventoryRow = typeof inventories.$inferInsert

export const insertInventory = async (db: Db, values: NewInventoryRow) => (await db.insert(inventories).values(values).returning())[0]!

export const findInventoryById = async (db: Db, id: string) => (await db.select().from(inventories).where(eq(inventories.id, id)))[0]

/**
 * The inventory, its row locked until the transaction ends: what sells or holds its tickets
 * locks it too, so sold and held cannot move while a decision is made on them.
 */
export const lockInventoryById = async (db: Db, id: string) => (await db.select().from(inventories).where(eq(inventories.id, id)).for('no key update'))[0]

export const updateInventoryRow = async (db: Db, id: string, values: Partial<NewInventoryRow>) =>
  (
    await db
      .update(inventories)
      .set({ ...values, updatedAt: sql`now()` })
      .where(eq(inventories.id, id))
      .returning()
  )[0]

/** An event's inventories by date, then show time, then name. */
export async function listInventoryRows(db: Db, eventId: string, paging: Paging): Promise<Page<InventoryRow>> {
  const where = eq(inventories.eventId, eventId)
  const rows = await db
    .select()
    .from(inventories)
    .where(where)
    .orderBy(asc(inventories.date), asc(inventories.time), asc(inventories.name), asc(inventories.id))
    .limit(paging.limit)
    .offset(offsetOf(paging))
  const [total] = await db.select({ n: count() }).from(inventories).where(where)
  return { rows, total: total?.n ?? 0 }
}

/** Which of these ids are inventories of this seller, or of this event. */
export async function ownedInventoryIds(db: Db, owner: { sellerId: string } | { eventId: string }, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const ownedBy = 'sellerId' in owner ? eq(inventories.sellerId, owner.sellerId) : eq(inventories.eventId, owner.eventId)
  const rows = await db
    .select({ id: inventories.id })
    .from(inventories)
    .where(and(ownedBy, inArray(inventories.id, [...ids])))
  return new Set(rows.map((row) => row.id))
}
