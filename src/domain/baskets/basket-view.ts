import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { CouponProblem } from '../coupons/coupon-rules.js'
import { countCustomerRedemptions, findCouponsByIds, lockCoupons, type CouponRow } from '../coupons/coupons.repo.js'
import type { EventScope } from '../inventory/availability.js'
import { unavailableInventories } from '../inventory/take-tickets.js'
import { toOrderItemView, type SoldItemView } from '../orders/order-view.js'
import { findOrderOfBasket, type OrderItemRow, type OrderRow } from '../orders/orders.repo.js'
import type { CouponSnapshot } from '../orders/orders.table.js'
import { findBasket, listBasketLines, type BasketLine, type BasketState } from './baskets.repo.js'
import { priceBasket, type BasketPrice } from './price-basket.js'
import { itemKey, quantitiesByInventory } from './variants.js'

/** A coupon as orders keep it: what it was when it was redeemed. */
export type CouponView = CouponSnapshot

/** A coupon attached to a basket, and whether it discounts anything now (else the code a checkout would refuse with). */
export type BasketCouponView = CouponView & { applicable: boolean; reason: CouponProblem | null }

export type BasketItemView = Omit<SoldItemView, 'coupon'> & {
  coupon: BasketCouponView | null
  /** False when the basket could not hold (or buy) this item now: its event stopped selling, its tickets are gone, its variant was withdrawn. */
  available: boolean
}

export type BasketView = {
  id: string
  status: 'open' | 'checked_out' | 'expired'
  expires_at: string
  affiliate_code: string | null
  customer_id: string | null
  /** The order a checked-out basket became. */
  order_id: string | null
  items: BasketItemView[]
  coupon: BasketCouponView | null
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
  /** Without a customer: a guest's email to count them for (docs/selling.md), at its checkout. */
  guestEmail?: string | undefined
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
  const redeemer = customerId ? { customerId } : options.guestEmail ? { sellerId: basket.sellerId, email: options.guestEmail } : undefined
  const customerUses = redeemer ? await countCustomerRedemptions(db, redeemer, ids) : undefined
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

const attached = (coupon: CouponView | null | undefined, problem: CouponProblem | null): BasketCouponView | null =>
  coupon ? { ...coupon, applicable: problem === null, reason: problem } : null

export const basketStatus = (basket: BasketState): BasketView['status'] =>
  basket.status === 'checked_out' ? 'checked_out' : basket.expired || basket.status === 'expired' ? 'expired' : 'open'

export type BasketViewOptions = {
  /** The contents priced already (default: priced now). */
  price?: BasketPrice
  /** Inventories the basket could not hold now (default: none, as right after holding them). */
  unavailable?: ReadonlySet<string>
}

/**
 * The API shape of a basket that is not checked out (docs/selling.md). A basket whose hold lapsed
 * holds no seat any more: its items show `seats: null` (docs/seating.md), not seats another basket may
 * hold by now.
 */
export function toBasketView(basket: BasketState, contents: BasketContents, options: BasketViewOptions = {}): BasketView {
  const price = options.price ?? priceContents(basket, contents)
  const status = basketStatus(basket)
  return {
    id: basket.id,
    status,
    expires_at: basket.expiresAt.toISOString(),
    affiliate_code: basket.affiliateCode,
    customer_id: basket.customerId,
    order_id: null,
    items: contents.lines.map((line, n) => ({
      id: line.id,
      inventory_id: line.inventoryId,
      event_id: line.eventId,
      date: line.date,
      name: line.name,
      variant: line.variant,
      quantity: line.quantity,
      unit_price: line.unitPrice,
      discount: price.lines[n]!.discount,
      total: price.lines[n]!.total,
      coupon: attached(couponView(line.couponId ? contents.coupons.get(line.couponId) : null), price.lines[n]!.couponProblem),
      seats: status === 'expired' ? null : line.seats,
      available: line.variantOffered && !options.unavailable?.has(line.inventoryId),
    })),
    coupon: attached(couponView(basket.couponId ? contents.coupons.get(basket.couponId) : null), price.couponProblem),
    totals: { subtotal: price.subtotal, discount: price.discount, total: price.total },
    created_at: basket.createdAt.toISOString(),
    updated_at: basket.updatedAt.toISOString(),
  }
}

/**
 * A checked-out basket reads as it was sold: its order's items, prices and coupons (redeemed,
 * so applicable), whatever the catalogue or the coupons became since.
 */
function soldBasketView(basket: BasketState, lines: BasketLine[], sold: { order: OrderRow; items: OrderItemRow[] }): BasketView {
  const itemIds = new Map(lines.map((line) => [itemKey(line.inventoryId, line.variant), line.id]))
  const { order } = sold
  return {
    id: basket.id,
    status: 'checked_out',
    expires_at: basket.expiresAt.toISOString(),
    affiliate_code: basket.affiliateCode,
    customer_id: basket.customerId,
    order_id: order.id,
    items: sold.items.map((item) => ({
      ...toOrderItemView(item),
      id: itemIds.get(itemKey(item.inventoryId, item.variant)) ?? item.id,
      coupon: attached(item.coupon, null),
      available: true,
    })),
    coupon: attached(order.coupon, null),
    totals: { subtotal: order.subtotal, discount: order.discount, total: order.subtotal - order.discount },
    created_at: basket.createdAt.toISOString(),
    updated_at: basket.updatedAt.toISOString(),
  }
}

/**
 * The basket's answer as it stands (GET): priced now, each item judged as a hold would judge it
 * for this caller (`scope`); a checked-out basket as it was sold.
 */
export async function readBasketView(db: Db, basket: BasketState, scope: EventScope): Promise<BasketView> {
  if (basket.status === 'checked_out') {
    const sold = await findOrderOfBasket(db, basket.id)
    if (sold) return soldBasketView(basket, await listBasketLines(db, basket.id), sold)
  }
  const contents = await loadBasketContents(db, basket)
  const unavailable = await unavailableInventories(db, {
    sellerId: basket.sellerId,
    scope,
    basketId: basket.id,
    wanted: quantitiesByInventory(contents.lines),
  })
  return toBasketView(basket, contents, { unavailable })
}

/** Reads a basket's answer, e.g. in the transaction that just changed it. */
export async function loadBasketView(db: Db, sellerId: string, basketId: string, scope: EventScope): Promise<BasketView> {
  const basket = await findBasket(db, sellerId, basketId)
  if (!basket) throw new AppError('not_found')
  return readBasketView(db, basket, scope)
}
