import type { Db } from '../../platform/db/database.js'
import { heldQuantities } from '../baskets/holds.repo.js'
import type { InventoryRow } from './inventories.repo.js'

/** An inventory with the tickets held by open baskets and those left: capacity - sold - held, never below 0. */
export type CountedInventory = InventoryRow & { held: number; available: number }

export const availableTickets = (capacity: number, sold: number, held: number) => Math.max(0, capacity - sold - held)

/** Adds held and available to inventory rows (one query for all of them). */
export async function withCounts(db: Db, rows: readonly InventoryRow[]): Promise<CountedInventory[]> {
  const held = await heldQuantities(
    db,
    rows.map((row) => row.id),
  )
  return rows.map((row) => {
    const h = held.get(row.id) ?? 0
    return { ...row, held: h, available: availableTickets(row.capacity, row.sold, h) }
  })
}
