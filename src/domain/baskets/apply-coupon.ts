import { eq } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { runStatement } from '../../platform/db/transaction-ending-with.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { lockOpenBasket } from './basket-access.js'
import { loadBasketContents, loadBasketView, priceContents } from './basket-view.js'
import { findCouponByCode } from '../coupons/coupons.repo.js'
import { listBasketLines, renewBasket, type BasketLine, type BasketState } from './baskets.repo.js'
import { basketItems } from './baskets.table.js'
import { takeTickets } from '../inventory/take-tickets.js'
import { quantitiesByInventory } from './variants.js'

export type ApplyCouponOptions = {
  sellerId: string
  ttlSeconds: number
  affiliate: AffiliateContext | null
  basketId: string
  /** Apply to this basket item only; without it, to the whole basket. */
  itemId?: string | undefined
  code: string
  actor: AuditActor
}

/**
 * Attaches a coupon (codes are case-insensitive) to the basket, replacing its basket coupon, or
 * to one item, replacing that item's coupon, after checking that it discounts something now:
 * coupon_invalid (unknown, inactive, outside its window), coupon_exhausted (a usage limit is
 * reached), coupon_not_applicable (covers nothing here, minimum not met, or already used
 * elsewhere in this basket). Renews the hold like any change.
 */
export const applyCoupon = (db: Db, options: ApplyCouponOptions) =>
  db.transaction(async (tx) => {
    const { sellerId, basketId, itemId } = options
    const basket = await lockOpenBasket(tx, sellerId, basketId, options.affiliate)
    const lines = await listBasketLines(tx, basketId)
    const index = itemId === undefined ? -1 : lines.findIndex((line) => line.id === itemId)
    if (itemId !== undefined && index < 0) throw new AppError('not_found', { message: 'No such item in this basket' })

    const coupon = await findCouponByCode(tx, sellerId, options.code.trim())
    if (!coupon) throw new AppError('coupon_invalid')
    if (usedElsewhere(basket, lines, coupon.id, itemId)) {
      throw new AppError('coupon_not_applicable', { message: 'This coupon is already applied elsewhere in this basket' })
    }
    const contents = await loadBasketContents(tx, basket, { lines, extra: coupon })
    const price = priceContents(basket, contents, itemId === undefined ? { basketCouponId: coupon.id } : { itemCoupons: new Map([[itemId, coupon.id]]) })
    const problem = itemId === undefined ? price.couponProblem : price.lines[index]!.couponProblem
    if (problem) throw new AppError(problem)

    // Renewing the hold: everything the basket holds must still fit.
    await runStatement(
      tx,
      takeTickets({
        sellerId,
        scope: options.affiliate?.eventIds ?? null,
        basketId,
        wanted: quantitiesByInventory(lines),
        added: new Map(),
        sell: false,
      }),
    )
    if (itemId === undefined) {
      await renewBasket(tx, basketId, options.ttlSeconds, { couponId: coupon.id })
    } else {
      await tx.update(basketItems).set({ couponId: coupon.id }).where(eq(basketItems.id, itemId))
      await renewBasket(tx, basketId, options.ttlSeconds)
    }
    await recordAudit(tx, options.actor, {
      action: 'stf.basket.coupon_applied',
      target: { type: 'basket', id: basketId },
      sellerId,
      data: { coupon_id: coupon.id, item_id: itemId ?? null },
    })
    return loadBasketView(tx, sellerId, basketId, options.affiliate?.eventIds ?? null)
  })

/** One coupon discounts one place in a basket: the basket, or a single item. */
function usedElsewhere(basket: BasketState, lines: BasketLine[], couponId: string, itemId: string | undefined) {
  if (itemId === undefined) return lines.some((line) => line.couponId === couponId)
  return basket.couponId === couponId || lines.some((line) => line.id !== itemId && line.couponId === couponId)
}
