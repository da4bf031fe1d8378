import type { Db } from '../../platform/db/database.js'
import type { Page, Paging } from '../../platform/db/paging.js'
import { AppError } from '../../platform/errors.js'
import { listAffiliateRows, withEventScopes, type ScopedAffiliate } from './affiliates.repo.js'
import { findSellerById } from './sellers.repo.js'

export type ListAffiliatesOptions = { sellerId: string } & Paging

/** A page of a seller's affiliates, inactive ones included, by code; 404 for no such seller. */
export async function listAffiliates(db: Db, { sellerId, page, limit }: ListAffiliatesOptions): Promise<Page<ScopedAffiliate>> {
  if (!(await findSellerById(db, sellerId))) throw new AppError('not_found')
  const { rows, total } = await listAffiliateRows(db, sellerId, { page, limit })
  return { rows: await withEventScopes(db, rows), total }
}
