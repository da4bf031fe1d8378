import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { lockOrder } from '../orders/orders.repo.js'
import { recordWebhookEvents, refundEvent } from '../webhooks/webhook-events.js'
import { toRefundView, type RefundView } from './payment-views.js'
import { findRefund, lockRefund, markRefundDone } from './refunds.repo.js'
import { bookRefund } from './write-refund.js'

export type ConfirmRefundOptions = {
  refundId: string
  /** The storefront's seller: only its own refunds (another's is not found). The back office passes null. */
  sellerId: string | null
  /** The provider's reference of the executed refund. */
  reference: string
  actor: AuditActor
}

/**
 * The partner says its provider executed a pending refund (docs/payments.md): it is `done` under the
 * provider's reference, and booked at once (the ledger's `refund` row, the order's
 * `refunded_total`), with the webhook `refund.done`. Under its order's lock, as every refund
 * change, so that two confirmations at once book it once. Confirming a done refund changes
 * nothing (whatever reference it is given) and answers it as it is.
 */
export const confirmRefund = (db: Db, options: ConfirmRefundOptions) =>
  db.transaction(async (tx): Promise<RefundView> => {
    const found = await findRefund(tx, options.refundId, options.sellerId)
    if (!found) throw new AppError('not_found')
    const order = (await lockOrder(tx, found.orderId))!
    const refund = await lockRefund(tx, found.id)
    if (refund.status === 'done') return toRefundView(refund)

    const done = await markRefundDone(tx, refund.id, options.reference)
    await bookRefund(tx, order, done)
    const view = toRefundView(done)
    await recordAudit(tx, options.actor, {
      action: `${options.actor.type === 'staff' ? 'adm' : 'stf'}.refund.confirmed`,
      target: { type: 'order', id: order.id },
      sellerId: order.sellerId,
      data: { refund_id: done.id, amount: done.amount, reference: done.reference },
    })
    await recordWebhookEvents(tx, order.sellerId, [refundEvent('refund.done', view, order.affiliateCode)])
    return view
  })
