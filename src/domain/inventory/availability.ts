import type { Db } from '../../platform/db/database.js'
import { readStandings, type InventoryStanding } from './inventory.repo.js'

/** Which events a caller may see and sell: null = every event of the seller (no affiliate, or an unrestricted one). */
export type EventScope = readonly string[] | null

export const inScope = (scope: EventScope, eventId: string) => scope === null || scope.includes(eventId)

/**
 * The tickets each of a seller's inventories still sells to a caller, as the sale rule says now
 * (sql/sale_standing.sql): 0 for one not on sale to it. Ids of other sellers are absent.
 */
export async function ticketsLeft(db: Db, sellerId: string, scope: EventScope, inventoryIds: readonly string[]): Promise<Map<string, number>> {
  const standings = await readStandings(db, { sellerId, inventoryIds, scope })
  return new Map(standings.map((standing) => [standing.id, standing.ticketsLeft]))
}

/**
 * How one of a seller's inventories stands for a caller asking `quantity` of it (sql/sale_standing.sql),
 * e.g. whether a buyer may join its waiting list; undefined for another seller's or none.
 */
export async function standingFor(db: Db, sellerId: string, scope: EventScope, inventoryId: string, quantity: number): Promise<InventoryStanding | undefined> {
  const [standing] = await readStandings(db, { sellerId, inventoryIds: [inventoryId], scope, quantities: new Map([[inventoryId, quantity]]) })
  return standing
}
