import { AppError } from '../../platform/errors.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import type { BasketState } from './baskets.repo.js'

/**
 * A basket created under an affiliate code answers only to that code, one created without a
 * code only without one; otherwise (and for another seller's basket) it does not exist.
 */
export function assertBasketAccess(basket: BasketState | undefined, affiliate: AffiliateContext | null): asserts basket is BasketState {
  if (!basket || basket.affiliateId !== (affiliate?.id ?? null)) throw new AppError('not_found')
}

/** Changing, pricing or checking out needs a live hold: 410 basket_expired otherwise. */
export function assertBasketOpen(basket: BasketState) {
  if (basket.status === 'checked_out') throw new AppError('basket_expired', { message: 'The basket was already checked out' })
  if (basket.expired || basket.status !== 'open') throw new AppError('basket_expired')
}

/** Distinct inventories one basket may hold. */
export const MAX_BASKET_ITEMS = 50
