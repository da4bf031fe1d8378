import type { Db } from '../../platform/db/database.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import type { TicketsFreed } from '../inventory/freeing-tickets.js'
import { toRefundView } from '../payments/payment-views.js'
import { emailRefund, refundableOf, refundCreatedEvents, writeRefund } from '../payments/write-refund.js'
import { orderEvent, recordWebhookEvents } from '../webhooks/webhook-events.js'
import { loadOrderViews, type OrderView } from './order-view.js'
import { endOrder } from './order-voids.js'
import type { OrderRow } from './orders.repo.js'
import type { OrderStatus } from './orders.table.js'
import { countByInventory } from './release-order.js'

export type EndOrderWithRefundOptions = {
  codes: TicketCodes
  /** The status `decide` gave the change. */
  to: OrderStatus
  /** The refund's reason, as the buyer and the partner read it. */
  reason: string
  /** The audit entry's action, e.g. `adm.order.cancelled`. */
  action: string
  actor: AuditActor
}

/**
 * Ends a locked order that its buyer or seller gives up (a cancellation, a withdrawal): its
 * tickets go back on sale and the ledger voids what it had sold (`endOrder`), and when anything
 * was paid and is not refunded yet, a pending refund of all of it is left for the partner to
 * execute at its provider (its tickets: those released now). An order awaiting payment paid
 * nothing: it simply ends. The audit entry, the webhooks `order.cancelled` (and `refund.created`)
 * and the buyer's refund email go with it. Answers the order as it is now.
 */
export async function endOrderWithRefund(tx: Db, stock: TicketsFreed, order: OrderRow, options: EndOrderWithRefundOptions): Promise<OrderView> {
  const ended = await endOrder(tx, stock, order, options.to, options.codes)
  const left = await refundableOf(tx, ended.order)
  const refunded =
    left > 0
      ? await writeRefund(tx, ended.order, {
          amount: left,
          tickets: ended.tickets.map((ticket) => ticket.identifier),
          reason: options.reason,
          reference: null,
        })
      : null
  await recordAudit(tx, options.actor, {
    action: options.action,
    target: { type: 'order', id: order.id },
    sellerId: order.sellerId,
    data: {
      tickets_returned: Object.fromEntries(countByInventory(ended.tickets)),
      coupons_released: ended.couponIds,
      refund_id: refunded?.refund.id ?? null,
      refund_amount: refunded?.refund.amount ?? 0,
    },
  })
  const view = (await loadOrderViews(tx, options.codes, [refunded?.order ?? ended.order]))[0]!
  const refund = refunded && toRefundView(refunded.refund)
  await recordWebhookEvents(tx, order.sellerId, [orderEvent('order.cancelled', view), ...(refund ? refundCreatedEvents(refund, view.affiliate_code) : [])])
  if (refund) await emailRefund(tx, view, refund)
  return view
}
