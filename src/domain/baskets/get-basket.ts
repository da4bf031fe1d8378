import type { Db } from '../../platform/db/database.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { assertBasketAccess } from './basket-access.js'
import { readBasketView, type BasketView } from './basket-view.js'
import { findBasket } from './baskets.repo.js'

export type GetBasketOptions = { sellerId: string; affiliate: AffiliateContext | null; basketId: string }

/** The basket as it stands; one whose hold lapsed reads as `expired` (its items without seats), one checked out as it was sold. */
export async function getBasket(db: Db, { sellerId, affiliate, basketId }: GetBasketOptions): Promise<BasketView> {
  const basket = await findBasket(db, sellerId, basketId)
  assertBasketAccess(basket, affiliate)
  return readBasketView(db, basket, affiliate?.eventIds ?? null)
}
