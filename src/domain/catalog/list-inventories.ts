import type { Db } from '../../platform/db/database.js'
import type { Page, Paging } from '../../platform/db/paging.js'
import { AppError } from '../../platform/errors.js'
import { findEventById } from './events.repo.js'
import { listInventoryRows } from './inventories.repo.js'
import { withCounts, type CountedInventory } from '../inventory/held.js'

export type ListInventoriesOptions = { eventId: string } & Paging

/** A page of an event's inventories by date, with sold, held and available; 404 for no such event. */
export async function listInventories(db: Db, { eventId, page, limit }: ListInventoriesOptions): Promise<Page<CountedInventory>> {
  if (!(await findEventById(db, eventId))) throw new AppError('not_found')
  const { rows, total } = await listInventoryRows(db, eventId, { page, limit })
  return { rows: await withCounts(db, rows), total }
}
