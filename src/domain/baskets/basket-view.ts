import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { countCustomerRedemptions, findCouponsByIds, lockCoupons, type CouponRow } from '../coupons/coupons.repo.js'
import { findBasket, listBasketLines, type BasketLine, type BasketState } from './baskets.repo.js'
import { priceBasket, type BasketPrice } from './price-basket.js'

export type CouponView = { code: string; type: 'percent' | 'fixed'; value: number }

export type BasketItemView = {
  id: string
  inventory_id: string
  event_id: string
  date: string
  name: string
  quantity: number
  unit_price: number
  discount: number
  total: number
  coupon: CouponView | null
}

export type BasketView = {
  id: string
  status: 'open' | 'checked_out' | 'expired'
  expires_at: string
  affiliate_code: string | null
  customer_id: string | null
  items: BasketItemView[]
  coupon: CouponView | null
  totals: { subtotal: number; discount: number; total: number }
  created_at: string
  updated_at: string
}

/** A basket's lines and the coupons they refer to: everything pricing needs. */
export type BasketContents = {
  lines: BasketLine[]
  coupons: Map<string, CouponRow>
  /** Per coupon, the confirmed orders of the customer the basket is for; absent without a customer. */
  customerUses: Map<string, number> | undefined
}

export type LoadBasketContentsOptions = {
  /** Lines already read in this transaction. */
  lines?: BasketLine[]
  /** The customer to count per-customer coupon uses for (default: the basket's). */
  customerId?: string | null
  /** A coupon about to be applied: read (and its customer uses counted) with the attached ones. */
  extra?: CouponRow
  /** Lock the coupon rows (checkout: after the inventories). */
  lock?: boolean
}

export async function loadBasketContents(db: Db, basket: BasketState, options: LoadBasketContentsOptions = {}): Promise<BasketContents> {
  const lines = options.lines ?? (await listBasketLines(db, basket.id))
  const ids = [...new Set([basket.couponId, ...lines.map((l) => l.couponId), options.extra?.id].filter((id): id is string => Boolean(id)))]
  const rows = options.lock ? await lockCoupons(db, ids) : await findCouponsByIds(db, ids)
  const coupons = new Map(rows.map((row) => [row.id, row]))
  const customerId = options.customerId !== undefined ? options.customerId : basket.customerId
  const customerUses = customerId ? await countCustomerRedemptions(db, customerId, ids) : undefined
  return { lines, coupons, customerUses }
}

export type CouponChoice = {
  /** The basket coupon (default: the one attached). */
  basketCouponId?: string | null
  /** Item coupons that differ from the attached ones, by item id. */
  itemCoupons?: ReadonlyMap<string, string | null>
}

/** Prices the contents, optionally as if other coupons were attached. */
export function priceContents(basket: BasketState, contents: BasketContents, choice: CouponChoice = {}): BasketPrice {
  const couponOf = (id: string | null | undefined) => (id ? (contents.coupons.get(id) ?? null) : null)
  return priceBasket({
    now: basket.now,
    coupon: couponOf(choice.basketCouponId !== undefined ? choice.basketCouponId : basket.couponId),
    lines: contents.lines.map((line) => ({
      id: line.id,
      inventoryId: line.inventoryId,
      eventId: line.eventId,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      coupon: couponOf(choice.itemCoupons?.has(line.id) ? choice.itemCoupons.get(line.id) : line.couponId),
    })),
    ...(contents.customerUses ? { customerUses: contents.customerUses } : {}),
  })
}

export const couponView = (coupon: CouponRow | null | undefined): CouponView | null =>
  coupon ? { code: coupon.code, type: coupon.type, value: coupon.value } : null

export const basketStatus = (basket: BasketState): BasketView['status'] =>
  basket.status === 'checked_out' ? 'checked_out' : basket.expired || basket.status === 'expired' ? 'expired' : 'open'

/** The API shape of a basket (API.md 3.4). */
export function toBasketView(basket: BasketState, contents: BasketContents, price: BasketPrice = priceContents(basket, contents)): BasketView {
  return {
    id: basket.id,
    status: basketStatus(basket),
    expires_at: basket.expiresAt.toISOString(),
    affiliate_code: basket.affiliateCode,
    customer_id: basket.customerId,
    items: contents.lines.map((line, n) => ({
      id: line.id,
      inventory_id: line.inventoryId,
      event_id: line.eventId,
      date: line.date,
      name: line.name,
      quantity: line.quantity,
      unit_price: line.unitPrice,
      discount: price.lines[n]!.discount,
      total: price.lines[n]!.total,
      coupon: couponView(line.couponId ? contents.coupons.get(line.couponId) : null),
    })),
    coupon: couponView(basket.couponId ? contents.coupons.get(basket.couponId) : null),
    totals: { subtotal: price.subtotal, discount: price.discount, total: price.total },
    created_at: basket.createdAt.toISOString(),
    updated_at: basket.updatedAt.toISOString(),
  }
}

/** Reads a basket's answer, e.g. in the transaction that just changed it. */
export async function loadBasketView(db: Db, sellerId: string, basketId: string): Promise<BasketView> {
  const basket = await findBasket(db, sellerId, basketId)
  if (!basket) throw new AppError('not_found')
  return toBasketView(basket, await loadBasketContents(db, basket))
}
