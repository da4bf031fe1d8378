import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { inventories } from '../catalog/inventories.table.js'

/**
 * "Held" is defined once, by the database function `tickets_held` (sql/tickets_held.sql): the
 * tickets of an inventory held by open, unexpired baskets, and when the first of those holds runs
 * out; available is `tickets_available` (sql/tickets_available.sql). Everything here asks them; nothing else in `src` counts
 * held tickets (test/unit/architecture.test.ts). It is an SQL function the planner inlines, so a
 * statement over many inventories pays nothing for the call. To decide on it safely, lock the
 * inventory rows first (sql/take_tickets.sql does).
 */

/** Tickets held now on the inventory `inventoryId` names, by open, unexpired baskets other than `exceptBasketId`. */
export const heldSql = (inventoryId: SQL, exceptBasketId: SQL | null = null) =>
  sql<number>`(select h.held from tickets_held(${inventoryId}, ${exceptBasketId ?? sql`null`}::uuid) as h)`

/**
 * Milliseconds until the first hold on the inventory runs out (of every basket's, none
 * excepted), by the database's clock; null when nothing is held. Until then the count of held
 * tickets cannot fall by itself, only by a change announced on `tickets_freed` (sql/announce_tickets_freed.sql).
 */
export const firstReleaseSql = (inventoryId: SQL) => sql<number | null>`(select h.first_release_ms from tickets_held(${inventoryId}, null) as h)`

/** Tickets held by open, unexpired baskets on each of these inventories (0: none). */
export async function heldQuantities(db: Db, inventoryIds: readonly string[]): Promise<Map<string, number>> {
  const counts = await countsOf(db, inventoryIds)
  return new Map([...counts].map(([id, count]) => [id, count.held]))
}

/** What open baskets hold on each of these inventories, and what is available (sql/tickets_available.sql). */
async function countsOf(db: Db, inventoryIds: readonly string[]): Promise<Map<string, { held: number; available: number }>> {
  if (inventoryIds.length === 0) return new Map()
  const { rows } = await db.execute<{ id: string; held: number; available: number }>(sql`
    select i.id, h.held, tickets_available(i.capacity - i.seats_blocked, i.sold, h.held) as available
      from inventories i cross join lateral tickets_held(i.id, null) as h
     where i.id = any(${sql.param([...inventoryIds])}::uuid[])`)
  return new Map(rows.map((row) => [row.id, { held: Number(row.held), available: Number(row.available) }]))
}

type InventoryRow = typeof inventories.$inferSelect

/** An inventory with the tickets held by open baskets and those left: capacity - sold - held, never below 0. */
export type CountedInventory = InventoryRow & { held: number; available: number }

/** Adds held and available, as the database counts them now, to inventory rows (one query for all of them). */
export async function withCounts(db: Db, rows: readonly InventoryRow[]): Promise<CountedInventory[]> {
  const counts = await countsOf(
    db,
    rows.map((row) => row.id),
  )
  return rows.map((row) => ({ ...row, held: 0, available: 0, ...counts.get(row.id) }))
}
