import { and, gt, inArray, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { basketItems } from '../baskets/baskets.table.js'
import type { inventories } from '../catalog/inventories.table.js'
import { availableOf } from './availability.js'

/**
 * Tickets held by open, unexpired baskets, per inventory. The one definition of "held":
 * available = capacity - sold - held. To decide on it safely, lock the inventory rows first.
 * An item holds until its `held_until` (its open basket's expiry, kept by triggers), so the
 * count reads only the items that hold now, through an index, however many baskets there were.
 * The same definition lives in `heldSql` and `firstReleaseSql` below, and in the database
 * functions sql/lock_inventories_with_held.sql (counting) and sql/take_tickets.sql (the first hold to run out): change them
 * together, here only (no other module counts held tickets).
 */
export async function heldQuantities(db: Db, inventoryIds: readonly string[], exceptBasketId?: string): Promise<Map<string, number>> {
  const held = new Map<string, number>()
  if (inventoryIds.length === 0) return held
  const rows = await db
    .select({ inventoryId: basketItems.inventoryId, held: sql<number>`coalesce(sum(${basketItems.quantity}), 0)::int` })
    .from(basketItems)
    .where(
      and(
        inArray(basketItems.inventoryId, [...inventoryIds]),
        gt(basketItems.heldUntil, sql`now()`),
        exceptBasketId ? sql`${basketItems.basketId} <> ${exceptBasketId}` : undefined,
      ),
    )
    .groupBy(basketItems.inventoryId)
  for (const row of rows) held.set(row.inventoryId, Number(row.held))
  return held
}

/**
 * The same definition of "held" as a correlated SQL expression, for statements that judge many
 * inventories at once without locking (the catalogue, the precheck of a hold): tickets of the
 * inventory `inventoryId` names, held by open, unexpired baskets other than `exceptBasketId`.
 */
export const heldSql = (inventoryId: SQL, exceptBasketId?: SQL | string) => sql<number>`coalesce((
    select sum(bi.quantity) from basket_items bi
     where bi.inventory_id = ${inventoryId} and bi.held_until > now()${
       exceptBasketId === undefined ? sql`` : sql` and bi.basket_id is distinct from ${exceptBasketId}::uuid`
     }), 0)::int`

/**
 * Milliseconds until the first hold on the inventory runs out (of every basket's, none
 * excepted), by the database's clock; null when nothing is held. Until then the count of held
 * tickets cannot fall by itself, only by a change announced on `tickets_freed` (sql/announce_tickets_freed.sql).
 */
export const firstReleaseSql = (inventoryId: SQL) => sql<number | null>`(
    select extract(epoch from min(bi.held_until) - now()) * 1000 from basket_items bi
     where bi.inventory_id = ${inventoryId} and bi.held_until > now())::float8`

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
