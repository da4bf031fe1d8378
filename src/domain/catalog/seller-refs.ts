import type { Db } from '../../platform/db/database.js'
import { AppError, type ErrorDetail } from '../../platform/errors.js'
import { ownedEventIds } from './events.repo.js'
import { ownedInventoryIds } from './inventories.repo.js'

export type SellerRefs = { eventIds?: readonly string[] | undefined; inventoryIds?: readonly string[] | undefined }

/**
 * Checks that the events and inventories a body names (an affiliate's or a coupon's scope)
 * belong to this seller, and answers them without repeats. An id of another seller is
 * refused exactly like an id that exists nowhere: 400 `validation_error`, naming the entry.
 */
export async function checkSellerRefs(db: Db, sellerId: string, refs: SellerRefs) {
  const eventIds = refs.eventIds ? [...new Set(refs.eventIds)] : undefined
  const inventoryIds = refs.inventoryIds ? [...new Set(refs.inventoryIds)] : undefined
  const details: ErrorDetail[] = []
  if (refs.eventIds?.length) {
    const owned = await ownedEventIds(db, sellerId, eventIds!)
    refs.eventIds.forEach((id, index) => {
      if (!owned.has(id)) details.push({ path: `event_ids.${index}`, message: 'is not an event of this seller' })
    })
  }
  if (refs.inventoryIds?.length) {
    const owned = await ownedInventoryIds(db, { sellerId }, inventoryIds!)
    refs.inventoryIds.forEach((id, index) => {
      if (!owned.has(id)) details.push({ path: `inventory_ids.${index}`, message: 'is not an inventory of this seller' })
    })
  }
  if (details.length > 0) throw new AppError('validation_error', { details })
  return { eventIds, inventoryIds }
}
