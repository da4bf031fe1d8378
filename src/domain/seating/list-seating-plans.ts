import type { Db } from '../../platform/db/database.js'
import type { Paging } from '../../platform/db/paging.js'
import { AppError } from '../../platform/errors.js'
import { findSellerById } from '../sellers/sellers.repo.js'
import { listPlanRows } from './seating-plans.repo.js'

export type ListSeatingPlansOptions = { sellerId: string } & Paging

/** A page of a seller's plans, newest first, without their documents; 404 for no such seller. */
export async function listSeatingPlans(db: Db, { sellerId, page, limit }: ListSeatingPlansOptions) {
  if (!(await findSellerById(db, sellerId))) throw new AppError('not_found')
  return listPlanRows(db, sellerId, { page, limit })
}
