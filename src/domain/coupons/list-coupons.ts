import type { Db } from '../../platform/db/database.js'
import type { Paging } from '../../platform/db/paging.js'
import { AppError } from '../../platform/errors.js'
import { findSellerById } from '../sellers/sellers.repo.js'
import { listCouponRows } from './coupons.repo.js'

export type ListCouponsOptions = { sellerId: string; active?: boolean | undefined } & Paging

/** A page of a seller's coupons by code; 404 for no such seller. */
export async function listCoupons(db: Db, { sellerId, active, page, limit }: ListCouponsOptions) {
  if (!(await findSellerById(db, sellerId))) throw new AppError('not_found')
  return listCouponRows(db, sellerId, { active }, { page, limit })
}
