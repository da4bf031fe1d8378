import type { Db } from '../../platform/db/database.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { assertBasketAccess, assertBasketOpen } from './basket-access.js'
import { loadBasketContents, priceContents } from './basket-view.js'
import { findBasket } from './baskets.repo.js'
import { installmentPlans, type InstallmentPlan, type InstallmentSettings } from './installment-plans.js'

export type QuoteInstallmentsOptions = {
  sellerId: string
  affiliate: AffiliateContext | null
  basketId: string
  paymentMethod: string
  settings: InstallmentSettings
}

export type InstallmentsView = { payment_method: string; total: number; plans: InstallmentPlan[] }

/** The installment plans for the basket's current total (docs/selling.md). */
export async function quoteInstallments(db: Db, options: QuoteInstallmentsOptions): Promise<InstallmentsView> {
  const basket = await findBasket(db, options.sellerId, options.basketId)
  assertBasketAccess(basket, options.affiliate)
  await assertBasketOpen(db, basket)
  const { total } = priceContents(basket, await loadBasketContents(db, basket))
  return { payment_method: options.paymentMethod, total, plans: installmentPlans(total, options.paymentMethod, options.settings) }
}
