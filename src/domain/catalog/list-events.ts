import type { Db } from '../../platform/db/database.js'
import type { Paging } from '../../platform/db/paging.js'
import { AppError } from '../../platform/errors.js'
import { findSellerById } from '../sellers/sellers.repo.js'
import { listEventRows, type EventStatus } from './events.repo.js'

export type ListEventsOptions = { sellerId: string; status?: EventStatus | undefined } & Paging

/** A page of a seller's events of every status (or one), newest first; 404 for no such seller. */
export async function listEvents(db: Db, { sellerId, status, page, limit }: ListEventsOptions) {
  if (!(await findSellerById(db, sellerId))) throw new AppError('not_found')
  return listEventRows(db, sellerId, { status }, { page, limit })
}
