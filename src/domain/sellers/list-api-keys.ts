import type { Db } from '../../platform/db/database.js'
import type { Paging } from '../../platform/db/paging.js'
import { AppError } from '../../platform/errors.js'
import { listApiKeyRows } from './api-keys.repo.js'
import { findSellerById } from './sellers.repo.js'

export type ListApiKeysOptions = { sellerId: string } & Paging

/** A page of a seller's API keys (never their hashes), revoked ones included; 404 for no such seller. */
export async function listApiKeys(db: Db, { sellerId, page, limit }: ListApiKeysOptions) {
  if (!(await findSellerById(db, sellerId))) throw new AppError('not_found')
  return listApiKeyRows(db, sellerId, { page, limit })
}
