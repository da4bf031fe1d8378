import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { inventories } from '../catalog/inventories.table.js'
import { availableOf } from './availability.js'

/**
 * "Held" is defined once, by the database function `tickets_held` (sql/tickets_held.sql): the
 * tickets of an inventory held by open, unexpired baskets, and when the first of those holds runs
 * out. available = capacity - sold - held. Everything here asks it; nothing else in `src` counts
 * held tickets (test/unit/architecture.test.ts). It is an SQL function the planner inlines, so a
 * statement over many inventories pays nothing for the call. To decide on it safely, lock the
 * inventory rows first (sql/lock_inventories_with_held.sql does).
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
  const held = new Map<string, number>()
  if (inventoryIds.length === 0) return held
  const { rows } = await db.execute<{ id: string; held: number }>(sql`
    select w.id, ${heldSql(sql`w.id`)} as held from unnest(${sql.param([...inventoryIds])}::uuid[]) as w(id)`)
  for (const row of rows) held.set(row.id, Number(row.held))
  return held
}

type InventoryRow = typeof inventories.$inferSelect

/** An inventory with the tickets held by open baskets and those left: capacity - sold - held, never below 0. */
export type CountedInventory = InventoryRow & { held: number; available: number }

/** An inventory row with what open baskets hold on it and what is left (`held`: when already counted). */
export const countedOf = (row: InventoryRow, held: number): CountedInventory => ({ ...row, held, available: availableOf(row, held) })

/** Adds held and available to inventory rows (one query for all of them). */
export async function withCounts(db: Db, rows: readonly InventoryRow[]): Promise<CountedInventory[]> {
  const held = await heldQuantities(
    db,
    rows.map((row) => row.id),
  )
  return rows.map((row) => countedOf(row, held.get(row.id) ?? 0))
}
