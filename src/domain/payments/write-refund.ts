import type { Db } from '../../platform/db/database.js'
import { enqueueEmail } from '../../platform/mail/outbox.repo.js'
import { orderEmailContexts, refundEmail } from '../orders/order-emails.js'
import type { OrderView } from '../orders/order-view.js'
import type { OrderRow } from '../orders/orders.repo.js'
import { refundEvent, type WebhookEventInput } from '../webhooks/webhook-events.js'
import { insertLedgerRows, refundRow } from './ledger.js'
import type { RefundRow, RefundView } from './payment-views.js'
import { addRefunded, insertRefund, pendingRefundsTotal } from './refunds.repo.js'

/**
 * What is left to refund of an order (docs/payments.md): what was paid, less its done refunds and its
 * pending ones. Call under the order's lock, which every refund's creation and confirmation take.
 */
export const refundableOf = async (tx: Db, order: OrderRow): Promise<number> =>
  order.paidTotal - order.refundedTotal - (await pendingRefundsTotal(tx, order.id))

export type RefundInput = { amount: number; tickets: string[]; reason: string; reference: string | null }

/**
 * Writes a refund of a locked order, within what is left (the caller judged it): `pending`, or
 * `done` at once with its provider's reference, booked then (`bookRefund`). Answers the refund
 * and the order as they are now.
 */
export async function writeRefund(tx: Db, order: OrderRow, input: RefundInput): Promise<{ refund: RefundRow; order: OrderRow }> {
  const refund = await insertRefund(tx, { sellerId: order.sellerId, orderId: order.id, ...input })
  return { refund, order: refund.status === 'done' ? await bookRefund(tx, order, refund) : order }
}

/**
 * A refund done: the money leaves the ledger (its `refund` row, − amount) and joins the order's
 * `refunded_total`, in the same transaction, so that the order's money rows always add up to
 * `paid_total − refunded_total`. A pending refund is never booked. Answers the order as it is now.
 */
export async function bookRefund(tx: Db, order: OrderRow, refund: RefundRow): Promise<OrderRow> {
  await insertLedgerRows(tx, [refundRow(order, refund, order.paymentMethod)]).execute()
  return addRefunded(tx, order.id, refund.amount)
}

/** The webhook events of a refund just written: `refund.created`, and `refund.done` after it when it was done at once. */
export const refundCreatedEvents = (refund: RefundView, affiliateCode: string | null): WebhookEventInput[] => [
  refundEvent('refund.created', refund, affiliateCode),
  ...(refund.status === 'done' ? [refundEvent('refund.done', refund, affiliateCode)] : []),
]

/** Tells the buyer of a refund written for them (the seller's locale and time zone), with the transaction. */
export async function emailRefund(tx: Db, order: OrderView, refund: RefundView): Promise<void> {
  const context = (await orderEmailContexts(tx, [order.id])).get(order.id)
  if (context) await enqueueEmail(tx, refundEmail(context, order, refund))
}
