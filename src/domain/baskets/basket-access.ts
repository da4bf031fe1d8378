import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findOrderIdOfBasket } from '../orders/orders.repo.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { lockBasket, type BasketState } from './baskets.repo.js'

/**
 * A basket created under an affiliate code answers only to that code, one created without a
 * code only without one; otherwise (and for another seller's basket) it does not exist.
 */
export function assertBasketAccess(basket: BasketState | undefined, affiliate: AffiliateContext | null): asserts basket is BasketState {
  if (!basket || basket.affiliateId !== (affiliate?.id ?? null)) throw new AppError('not_found')
}

/**
 * Changing, pricing or checking out needs an open basket: 409 basket_checked_out (naming its
 * order) once it was checked out, 410 basket_expired when its hold lapsed. The order is read
 * by a statement of its own: under READ COMMITTED, a lock that waited for the checkout re-reads
 * the basket row as it committed, but not the rows a join found before the wait.
 */
export async function assertBasketOpen(db: Db, basket: BasketState): Promise<void> {
  if (basket.status === 'checked_out') {
    throw new AppError('basket_checked_out', { details: { order_id: await findOrderIdOfBasket(db, basket.id) } })
  }
  if (basket.expired || basket.status !== 'open') throw new AppError('basket_expired')
}

/** Locks a basket the caller may address and that is still open, for a change. */
export async function lockOpenBasket(db: Db, sellerId: string, basketId: string, affiliate: AffiliateContext | null): Promise<BasketState> {
  const basket = await lockBasket(db, sellerId, basketId)
  assertBasketAccess(basket, affiliate)
  await assertBasketOpen(db, basket)
  return basket
}

/** Distinct inventories one basket may hold. */
export const MAX_BASKET_ITEMS = 50
