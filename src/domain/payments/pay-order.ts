import { randomUUID } from 'node:crypto'
import type { Db } from '../../platform/db/database.js'
import { runStatement } from '../../platform/db/transaction-ending-with.js'
import { AppError } from '../../platform/errors.js'
import { enqueueEmail } from '../../platform/mail/outbox.repo.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { isPaymentMethod, type PaymentMethod } from '../baskets/installment-plans.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { takeTickets } from '../inventory/take-tickets.js'
import { quantitiesByInventory } from '../baskets/variants.js'
import { orderConfirmedEmail, orderEmailContexts } from '../orders/order-emails.js'
import { decide } from '../orders/order-states.js'
import { visibleOrder } from '../orders/get-order.js'
import { loadOrderViews } from '../orders/order-view.js'
import { confirmPaidOrder, lockOrderWhere, markOrderTicketsChanged, orderItemsOf, type OrderItemRow, type OrderRow } from '../orders/orders.repo.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { orderEvent, recordWebhookEvents } from '../webhooks/webhook-events.js'
import { insertLedgerRows, paymentRows, saleRows } from './ledger.js'
import { toPaymentView, type PaymentView } from './payment-views.js'
import { findPaymentByReference, insertPaymentQuery } from './payments.repo.js'
import { redeemCouponsAgain } from '../coupons/coupons.repo.js'

export type PayOrderOptions = {
  /** Signs the tickets' codes of the order's `order.confirmed` event. */
  codes: TicketCodes
  orderId: string
  /** The storefront's seller (and affiliate, under `X-Affiliate-Code`); null: the back office, for any seller. */
  sellerId: string | null
  affiliate: AffiliateContext | null
  /** With `X-Order-Token`: only the order it opens (the token's hash). */
  orderTokenHash?: string | null | undefined
  amount: number
  /** The provider's reference: a payment per reference per order. */
  reference: string
  /** Default: the order's. */
  method?: string | undefined
  installments?: number | undefined
  actor: AuditActor
}

/**
 * Records a payment of an order (docs/payments.md). Decided under the order's row lock, so that of
 * payments arriving at once, or a payment and the expiry sweep, exactly one outcome happens:
 *
 * - the same `reference` again on this order answers the payment it recorded (`created: false`);
 * - the order's status decides (order-states.ts): a confirmed order refuses a new reference
 *   (`order_paid`), a cancelled one any (`order_cancelled`);
 * - the amount must be what is outstanding (`amount_mismatch`, `details.outstanding`);
 * - an expired order is reactivated first: its tickets (and seats, and coupon uses) are taken
 *   again under the sale rule, by `take_tickets` as at checkout; when they cannot all be, nothing
 *   is recorded (`order_expired`) and the partner returns the money at its provider.
 *
 * Paid in full, the order is confirmed: its tickets become valid (their change marked for the
 * door's feed), the ledger records the sale and the payment, and `order.confirmed` and the
 * tickets' email are queued, all in the same transaction.
 */
export async function payOrder(db: Db, options: PayOrderOptions): Promise<{ payment: PaymentView; created: boolean }> {
  return db.transaction(async (tx) => {
    const order = await lockOrderWhere(tx, visibleOrder({ ...options, customerId: null }))
    if (!order) throw new AppError('not_found')
    const earlier = await findPaymentByReference(tx, order.id, options.reference)
    if (earlier) return { payment: toPaymentView(earlier), created: false }

    decide(order.status, 'pay')
    const outstanding = order.total - order.paidTotal
    if (options.amount !== outstanding) {
      throw new AppError('amount_mismatch', { message: `The order owes ${outstanding} centavos`, details: { outstanding } })
    }
    const method = methodOf(options.method, order)
    const items = await orderItemsOf(tx, order.id)
    if (order.status === 'expired') await reactivate(tx, order, items)

    const payment = {
      id: randomUUID(),
      sellerId: order.sellerId,
      orderId: order.id,
      amount: options.amount,
      method,
      installments: options.installments ?? (method === order.paymentMethod ? order.installments : 1),
      reference: options.reference,
    }
    const [written] = await insertPaymentQuery(tx, payment).execute()
    const ledgerOrder = { id: order.id, sellerId: order.sellerId, interest: order.interest, affiliateCode: order.affiliateCode, coupon: order.coupon }
    await insertLedgerRows(tx, [...saleRows(ledgerOrder, items, method), ...paymentRows(ledgerOrder, payment)]).execute()
    const confirmed = await confirmPaidOrder(tx, order.id, options.amount, options.reference)
    // Valid now (an expired order's tickets, taken again, no longer voided): the door's feed hears of each.
    await markOrderTicketsChanged(tx, order.id, { revive: order.status === 'expired' })
    await recordAudit(tx, options.actor, {
      action: order.status === 'expired' ? 'order.reactivated_paid' : 'order.paid',
      target: { type: 'order', id: order.id },
      sellerId: order.sellerId,
      data: { payment_id: payment.id, amount: payment.amount, method, reference: payment.reference },
    })
    const [view] = await loadOrderViews(tx, options.codes, [confirmed])
    await recordWebhookEvents(tx, order.sellerId, [orderEvent('order.confirmed', view!)])
    const context = (await orderEmailContexts(tx, [order.id])).get(order.id)
    if (context) await enqueueEmail(tx, orderConfirmedEmail(context, view!))
    return { payment: toPaymentView(written!), created: true }
  })
}

/** The method paid with: the order's unless another is named (recorded as given; 422 for one not supported). */
function methodOf(method: string | undefined, order: OrderRow): PaymentMethod {
  if (method === undefined && order.paymentMethod !== null) return order.paymentMethod
  if (method === undefined) throw new AppError('unsupported_payment_method')
  if (!isPaymentMethod(method)) throw new AppError('unsupported_payment_method')
  return method
}

/**
 * An expired order taken back to life, under the sale rule as it stands now: `take_tickets` on
 * its (checked-out) basket's items, which are exactly its tickets and seats, sells them again or
 * refuses; its coupons' uses are taken again within their limits (the caller then revives its tickets).
 * Anything short of all of it refuses with `order_expired`, and the transaction rolls back.
 */
async function reactivate(tx: Db, order: OrderRow, items: OrderItemRow[]) {
  const wanted = quantitiesByInventory(items)
  // Only a checkout's order awaits payment, so only one expires: it has its basket.
  if (order.basketId === null) throw gone('order_expired')
  try {
    await runStatement(tx, takeTickets({ sellerId: order.sellerId, scope: null, basketId: order.basketId, wanted, added: new Map(), sell: true }))
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    throw gone(error.code)
  }
  const couponIds = [order.couponId, ...items.map((item) => item.couponId)].filter((id): id is string => id !== null)
  if (!(await redeemCouponsAgain(tx, order, [...new Set(couponIds)]))) throw gone('coupon_exhausted')
}

const gone = (why: string) =>
  new AppError('order_expired', {
    message: 'This order expired unpaid and its tickets cannot all be taken again; nothing was recorded: return the payment at the provider',
    details: { reason: why },
  })
