import type { Db } from '../../platform/db/database.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { AppError } from '../../platform/errors.js'
import type { AuditActor } from '../audit/record-audit.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import { loadOrderViews, type OrderView } from './order-view.js'
import { decide } from './order-states.js'
import { endOrderWithRefund } from './end-order.js'
import { lockOrder } from './orders.repo.js'

export type CancelOrderOptions = {
  /** Signs the tickets' codes of the order answered (and of its webhook events). */
  codes: TicketCodes
  orderId: string
  /** Restricts to one seller's orders; the back office passes none. */
  sellerId?: string | undefined
  actor: AuditActor
}

/** The reason of the refund a cancellation leaves, as the buyer and the partner read it. */
export const CANCELLATION_REFUND_REASON = 'Order cancelled by the seller'

/**
 * The back office's cancellation (docs/payments.md): the order is `cancelled`, its valid tickets
 * go back on sale and are voided, and its coupon uses are given back (`endOrder`). A paid order
 * leaves a pending refund of what is left to refund (when anything is), and the ledger voids what
 * it had sold; an order awaiting payment simply ends, nothing having been sold or paid. An
 * expired or cancelled order is answered as it is. Webhooks `order.cancelled` (and
 * `refund.created`) and the buyer's refund email are written with the change.
 */
export const cancelOrder = (db: Db, options: CancelOrderOptions) =>
  freeingTickets(db, async (tx, stock): Promise<{ order: OrderView; changed: boolean }> => {
    const order = await lockOrder(tx, options.orderId)
    if (!order || (options.sellerId && order.sellerId !== options.sellerId)) throw new AppError('not_found')
    const verdict = decide(order.status, 'cancel')
    if ('same' in verdict) return { order: (await loadOrderViews(tx, options.codes, [order]))[0]!, changed: false }

    const view = await endOrderWithRefund(tx, stock, order, {
      codes: options.codes,
      to: verdict.to,
      reason: CANCELLATION_REFUND_REASON,
      action: 'adm.order.cancelled',
      actor: options.actor,
    })
    return { order: view, changed: true }
  })
