import type { Db } from '../../platform/db/database.js'
import type { Paging } from '../../platform/db/paging.js'
import { listSellerRows, type SellerFilter } from './sellers.repo.js'

export type ListSellersOptions = SellerFilter & Paging

/** A page of sellers, newest first, optionally by status or a piece of the name. */
export const listSellers = (db: Db, { status, q, page, limit }: ListSellersOptions) => listSellerRows(db, { status, q }, { page, limit })
