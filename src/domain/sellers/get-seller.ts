import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findSellerById, type SellerRow } from './sellers.repo.js'

/** A seller by id; 404 when there is none. */
export async function getSeller(db: Db, sellerId: string): Promise<SellerRow> {
  const seller = await findSellerById(db, sellerId)
  if (!seller) throw new AppError('not_found')
  return seller
}
