import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { lockOpenBasket } from './basket-access.js'
import { loadBasketView } from './basket-view.js'
import { basketItems, baskets } from './baskets.table.js'

export type RemoveCouponOptions = {
  sellerId: string
  affiliate: AffiliateContext | null
  basketId: string
  /** Remove this item's coupon; without it, the basket coupon. */
  itemId?: string | undefined
  actor: AuditActor
}

/**
 * Detaches a coupon, e.g. one a checkout refused as exhausted. Removing is idempotent. The hold
 * is not renewed: renewing needs the inventory check that only item changes make.
 */
export const removeCoupon = (db: Db, options: RemoveCouponOptions) =>
  db.transaction(async (tx) => {
    const { sellerId, basketId, itemId } = options
    await lockOpenBasket(tx, sellerId, basketId, options.affiliate)
    if (itemId !== undefined) {
      const [item] = await tx
        .update(basketItems)
        .set({ couponId: null })
        .where(and(eq(basketItems.id, itemId), eq(basketItems.basketId, basketId)))
        .returning({ id: basketItems.id })
      if (!item) throw new AppError('not_found', { message: 'No such item in this basket' })
    }
    await tx
      .update(baskets)
      .set({ updatedAt: sql`now()`, ...(itemId === undefined ? { couponId: null } : {}) })
      .where(eq(baskets.id, basketId))
    await recordAudit(tx, options.actor, {
      action: 'stf.basket.coupon_removed',
      target: { type: 'basket', id: basketId },
      sellerId,
      data: { item_id: itemId ?? null },
    })
    return loadBasketView(tx, sellerId, basketId, options.affiliate?.eventIds ?? null)
  })
