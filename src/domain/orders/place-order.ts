import { and, eq, isNull, lte, or, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { assertBasketAccess, assertBasketOpen } from '../baskets/basket-access.js'
import { couponView, loadBasketContents, priceContents } from '../baskets/basket-view.js'
import { listBasketLines, lockBasket } from '../baskets/baskets.repo.js'
import { baskets } from '../baskets/baskets.table.js'
import { holdTickets, precheckTickets } from '../baskets/hold-tickets.js'
import { installmentPlans, isPaymentMethod, type InstallmentSettings } from '../baskets/installment-plans.js'
import { inventories } from '../catalog/inventories.table.js'
import { coupons } from '../coupons/coupons.table.js'
import { runIdempotent } from '../idempotency/run-idempotent.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { toOrderView, type OrderView } from './order-view.js'
import { couponRedemptions, orderItems, orders, tickets } from './orders.table.js'
import { newTicketIdentifier } from './ticket-identifier.js'

export type PlaceOrderOptions = {
  sellerId: string
  affiliate: AffiliateContext | null
  basketId: string
  /** The customer of `X-Customer-Token`: the order's owner. */
  customerId: string
  settings: InstallmentSettings
  paymentMethod: string
  /** Number of installments, one of the plans for the method (default 1). */
  installments?: number | undefined
  /** The partner's payment capture reference. */
  paymentReference?: string | null | undefined
  idempotencyKey?: string | undefined
  actor: AuditActor
}

/**
 * Checks a basket out (API.md 3.5): its holds become sales, its coupons are redeemed within
 * their limits, and one ticket is issued per unit. All of it in one transaction, locking the
 * basket, then its inventories (in id order), then its coupons (in id order), so that nothing
 * is sold beyond capacity and no coupon beyond its limits, whatever runs at the same time.
 *
 * The order is priced exactly as the basket reads now. A coupon that no longer applies refuses
 * the checkout with its error (422) rather than changing the price the customer saw; it can be
 * removed from the basket. A basket already linked to another customer is not found.
 */
export const placeOrder = (db: Db, options: PlaceOrderOptions) =>
  db.transaction(async (tx) => {
    const { sellerId, basketId, customerId, affiliate } = options
    const guard = options.idempotencyKey
      ? {
          sellerId,
          key: options.idempotencyKey,
          request: [
            'POST /baskets/:id/checkout',
            basketId,
            affiliate?.id ?? null,
            customerId,
            options.paymentMethod,
            options.installments ?? null,
            options.paymentReference ?? null,
          ],
        }
      : undefined
    return runIdempotent(tx, guard, 201, async (): Promise<OrderView> => {
      const basket = await lockBasket(tx, sellerId, basketId)
      assertBasketAccess(basket, affiliate)
      if (basket.customerId !== null && basket.customerId !== customerId) throw new AppError('not_found')
      assertBasketOpen(basket)
      const lines = await listBasketLines(tx, basketId)
      if (lines.length === 0) throw new AppError('basket_empty')
      if (!isPaymentMethod(options.paymentMethod)) throw new AppError('unsupported_payment_method')

      const hold = {
        sellerId,
        scope: affiliate?.eventIds ?? null,
        basketId,
        wanted: new Map(lines.map((line) => [line.inventoryId, line.quantity])),
        added: new Map<string, number>(),
      }
      await precheckTickets(tx, hold)
      const locked = await holdTickets(tx, hold)
      // Priced from the locked rows, so the price is the one being sold at.
      const pricedLines = lines.map((line) => ({ ...line, unitPrice: locked.get(line.inventoryId)!.price }))
      const contents = await loadBasketContents(tx, basket, { lines: pricedLines, customerId, lock: true })
      const price = priceContents(basket, contents)
      const problem = price.couponProblem ?? price.lines.find((line) => line.couponProblem)?.couponProblem
      if (problem) throw new AppError(problem)

      const plan = installmentPlans(price.total, options.paymentMethod, options.settings).find(
        (p) => p.installments === (options.installments ?? 1),
      )
      if (!plan) {
        throw new AppError('validation_error', {
          details: [{ path: 'installments', message: 'no such installment plan for this payment method and total' }],
        })
      }

      const basketCoupon = basket.couponId ? contents.coupons.get(basket.couponId) : undefined
      const [order] = await tx
        .insert(orders)
        .values({
          sellerId,
          basketId,
          affiliateId: affiliate?.id ?? null,
          affiliateCode: affiliate?.code ?? null,
          customerId,
          couponId: basketCoupon?.id ?? null,
          coupon: couponView(basketCoupon),
          subtotal: price.subtotal,
          discount: price.discount,
          interest: plan.interest,
          total: plan.total,
          paymentMethod: options.paymentMethod,
          installments: plan.installments,
          installmentAmount: plan.amount,
          paymentReference: options.paymentReference ?? null,
        })
        .returning()
      const items = await tx
        .insert(orderItems)
        .values(
          pricedLines.map((line, n) => {
            const coupon = line.couponId ? contents.coupons.get(line.couponId) : undefined
            return {
              orderId: order!.id,
              inventoryId: line.inventoryId,
              eventId: line.eventId,
              date: line.date,
              name: line.name,
              quantity: line.quantity,
              unitPrice: line.unitPrice,
              discount: price.lines[n]!.discount,
              total: price.lines[n]!.total,
              couponId: coupon?.id ?? null,
              coupon: couponView(coupon),
              position: n,
            }
          }),
        )
        .returning()
      const issued = await tx
        .insert(tickets)
        .values(
          items.flatMap((item) =>
            Array.from({ length: item.quantity }, () => ({
              orderId: order!.id,
              orderItemId: item.id,
              inventoryId: item.inventoryId,
              identifier: newTicketIdentifier(),
            })),
          ),
        )
        .returning()

      for (const line of lines) {
        // The holds were just checked under these locks; the condition is the last line of defence.
        const [sold] = await tx
          .update(inventories)
          .set({ sold: sql`${inventories.sold} + ${line.quantity}`, updatedAt: sql`now()` })
          .where(and(eq(inventories.id, line.inventoryId), lte(sql`${inventories.sold} + ${line.quantity}`, inventories.capacity)))
          .returning({ id: inventories.id })
        if (!sold) throw new AppError('insufficient_inventory')
      }
      for (const coupon of contents.coupons.values()) {
        const [redeemed] = await tx
          .update(coupons)
          .set({ uses: sql`${coupons.uses} + 1` })
          .where(and(eq(coupons.id, coupon.id), or(isNull(coupons.maxUses), sql`${coupons.uses} < ${coupons.maxUses}`)))
          .returning({ id: coupons.id })
        if (!redeemed) throw new AppError('coupon_exhausted')
        await tx.insert(couponRedemptions).values({ couponId: coupon.id, orderId: order!.id, customerId })
      }
      await tx.update(baskets).set({ status: 'checked_out', customerId, updatedAt: sql`now()` }).where(eq(baskets.id, basketId))
      await recordAudit(tx, options.actor, {
        action: 'stf.order.placed',
        target: { type: 'order', id: order!.id },
        sellerId,
        data: {
          basket_id: basketId,
          customer_id: customerId,
          total: plan.total,
          payment_method: options.paymentMethod,
          installments: plan.installments,
          tickets: issued.length,
        },
      })
      return toOrderView(order!, items, issued)
    })
  })
