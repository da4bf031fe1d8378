import { eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import { loadOrderViews, type OrderView } from './order-view.js'
import { recordWebhookEvents, orderEvent } from '../webhooks/webhook-events.js'
import { lockOrder } from './orders.repo.js'
import { orders } from './orders.table.js'
import { countByInventory, releaseOrders } from './release-order.js'

export type CancelOrderOptions = {
  /** Signs the tickets' codes of the order answered (and of its webhook events). */
  codes: TicketCodes
  orderId: string
  /** Restricts to one seller's orders; the back office passes none. */
  sellerId?: string | undefined
  actor: AuditActor
}

/**
 * Cancels an order: its valid tickets go back on sale (sold decreases under the inventory locks,
 * in id order) and are voided, and its coupon redemptions are released. Cancelling a cancelled
 * order changes nothing and answers it as it is. An `order.cancelled` webhook event is written
 * with the change.
 */
export const cancelOrder = (db: Db, options: CancelOrderOptions) =>
  freeingTickets(db, async (tx, stock): Promise<{ order: OrderView; changed: boolean }> => {
    const order = await lockOrder(tx, options.orderId)
    if (!order || (options.sellerId && order.sellerId !== options.sellerId)) throw new AppError('not_found')
    if (order.status === 'cancelled') return { order: (await loadOrderViews(tx, options.codes, [order]))[0]!, changed: false }

    const released = await releaseOrders(tx, stock, [order])
    const quantities = countByInventory(released.tickets)
    const couponIds = released.couponIds

    const [cancelled] = await tx
      .update(orders)
      .set({ status: 'cancelled', cancelledAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(orders.id, order.id))
      .returning()
    await recordAudit(tx, options.actor, {
      action: 'adm.order.cancelled',
      target: { type: 'order', id: order.id },
      sellerId: order.sellerId,
      data: { tickets_returned: Object.fromEntries(quantities), coupons_released: couponIds },
    })
    const view = (await loadOrderViews(tx, options.codes, [cancelled!]))[0]!
    await recordWebhookEvents(tx, order.sellerId, [orderEvent('order.cancelled', view)])
    return { order: view, changed: true }
  })
