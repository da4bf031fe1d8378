import { and, eq, inArray, ne } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError, type ErrorDetail } from '../../platform/errors.js'
import { events } from '../catalog/events.table.js'
import { inventories, type InventoryVariant } from '../catalog/inventories.table.js'
import { inScope, type EventScope } from '../inventory/availability.js'

/**
 * Variants (docs/selling.md): ways to buy an inventory's tickets, e.g. half price (meia-entrada).
 * They share the inventory's capacity, so holds and sales count per inventory, whatever the
 * variant; a variant only sets the unit price (its own `price`, else the inventory's).
 */

/** An item's identity in a basket: its inventory and variant (none: null). */
export const itemKey = (inventoryId: string, variant: string | null | undefined) => `${inventoryId}\u0000${variant ?? ''}`

/** Tickets wanted per inventory: the items' quantities summed over their variants. */
export function quantitiesByInventory(items: Iterable<{ inventoryId: string; quantity: number }>): Map<string, number> {
  const wanted = new Map<string, number>()
  for (const item of items) wanted.set(item.inventoryId, (wanted.get(item.inventoryId) ?? 0) + item.quantity)
  return wanted
}

/** The first position in a request of each inventory, to point at in an error. */
export function firstPositions(items: readonly { inventoryId: string }[]): Map<string, number> {
  const positions = new Map<string, number>()
  items.forEach((item, n) => {
    if (!positions.has(item.inventoryId)) positions.set(item.inventoryId, n)
  })
  return positions
}

/** An inventory's variant by name (none asked for, or no such variant: undefined). */
export const findVariant = (variants: readonly InventoryVariant[], name: string | null) => (name === null ? undefined : variants.find((v) => v.name === name))

/** The variants of the inventories a caller can see (the seller's, not a draft's, in its scope), by inventory id. */
async function readVariants(db: Db, sellerId: string, scope: EventScope, inventoryIds: readonly string[]) {
  const rows = await db
    .select({ id: inventories.id, eventId: inventories.eventId, variants: inventories.variants })
    .from(inventories)
    .innerJoin(events, eq(events.id, inventories.eventId))
    .where(and(eq(inventories.sellerId, sellerId), inArray(inventories.id, [...inventoryIds]), ne(events.status, 'draft')))
  return new Map(rows.filter((row) => inScope(scope, row.eventId)).map((row) => [row.id, row.variants]))
}

export type VariantItem = { inventoryId: string; variant?: string | null | undefined; quantity: number }

/**
 * The variants of the inventories that the items name a variant of, after checking that each
 * named variant exists: else 400 validation_error at `items.N.variant`. An inventory the caller
 * cannot see is left to the hold, which answers 404 for it as for any other; a removal (quantity
 * 0) needs no check, since a variant may have been withdrawn since it was bought. No query when
 * no item names a variant.
 */
export async function checkVariants(db: Db, sellerId: string, scope: EventScope, items: readonly VariantItem[]): Promise<Map<string, InventoryVariant[]>> {
  const naming = (item: VariantItem) => item.variant != null && item.quantity > 0
  const named = [...new Set(items.filter(naming).map((item) => item.inventoryId))]
  if (named.length === 0) return new Map()
  const variants = await readVariants(db, sellerId, scope, named)
  const unknown: ErrorDetail[] = []
  items.forEach((item, n) => {
    const known = variants.get(item.inventoryId)
    if (naming(item) && known && !known.some((v) => v.name === item.variant)) {
      unknown.push({ path: `items.${n}.variant`, message: `inventory ${item.inventoryId} has no variant "${item.variant}"` })
    }
  })
  if (unknown.length > 0) throw new AppError('validation_error', { details: unknown })
  return variants
}
