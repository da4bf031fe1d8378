import type { Db } from '../../platform/db/database.js'
import type { Page, Paging } from '../../platform/db/paging.js'
import { AppError } from '../../platform/errors.js'
import { findInventoryById } from '../catalog/inventories.repo.js'
import { listInventorySeatRows, type InventorySeatRow, type SeatStatus } from './seats.repo.js'

export type ListInventorySeatsOptions = { inventoryId: string; status?: SeatStatus | undefined } & Paging

/**
 * A page of an inventory's seats in the plan's order, each with its state and holder: the basket
 * holding it, or the order and ticket identifier it is sold to. No such inventory: 404; an
 * unseated one has no seats.
 */
export async function listInventorySeats(db: Db, { inventoryId, status, page, limit }: ListInventorySeatsOptions): Promise<Page<InventorySeatRow>> {
  if (!(await findInventoryById(db, inventoryId))) throw new AppError('not_found')
  return listInventorySeatRows(db, inventoryId, status, { page, limit })
}
