import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { lockCoupons } from '../coupons/coupons.repo.js'
import { coupons } from '../coupons/coupons.table.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import { loadOrderViews, type OrderView } from './order-view.js'
import { recordWebhookEvents, orderEvent } from '../webhooks/webhook-events.js'
import { lockOrder } from './orders.repo.js'
import { couponRedemptions, orders, tickets } from './orders.table.js'

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

    // Tickets voided one by one are back on sale already: only the valid ones return now.
    const voided = await tx
      .update(tickets)
      .set({ voidedAt: sql`now()`, changedXid: sql`pg_current_xact_id()` })
      .where(and(eq(tickets.orderId, order.id), isNull(tickets.voidedAt)))
      .returning({ inventoryId: tickets.inventoryId })
    const quantities = new Map<string, number>()
    for (const { inventoryId } of voided) quantities.set(inventoryId, (quantities.get(inventoryId) ?? 0) + 1)
    if (quantities.size > 0) await stock.release(order.sellerId, quantities)

    const redeemed = await tx.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, order.id))
    const couponIds = [...new Set(redeemed.map((r) => r.couponId))]
    if (couponIds.length > 0) {
      await lockCoupons(tx, couponIds)
      for (const id of couponIds) {
        await tx
          .update(coupons)
          .set({ uses: sql`greatest(${coupons.uses} - 1, 0)` })
          .where(eq(coupons.id, id))
      }
      await tx.delete(couponRedemptions).where(eq(couponRedemptions.orderId, order.id))
    }

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
