import type { Db } from '../../platform/db/database.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import { loadOrderViews, type OrderView } from './order-view.js'
import { recordWebhookEvents, ticketEvents } from '../webhooks/webhook-events.js'
import { ticketsOfOrder, voidTickets } from './order-voids.js'
import { lockOrder } from './orders.repo.js'

export type VoidTicketOptions = {
  /** Signs the tickets' codes of the order answered (and of its webhook events). */
  codes: TicketCodes
  orderId: string
  identifier: string
  actor: AuditActor
}

/**
 * Voids one ticket of an order and puts it back on sale (sold decreases by one under the
 * inventory's lock); when the order is paid, the ledger writes its `void` row. The order's totals
 * stay as they were: what was charged is the partner's to refund (POST /orders/{id}/refunds).
 * Voiding a voided ticket changes nothing and answers the order as it is; a ticket of an order
 * awaiting payment: 409 `order_pending`. The order row is locked first, as a cancellation locks
 * it, so a void and a cancellation of the same order never both return the ticket. A
 * `ticket.voided` webhook event is written with the change.
 */
export const voidTicket = (db: Db, options: VoidTicketOptions) =>
  freeingTickets(db, async (tx, stock): Promise<{ order: OrderView; changed: boolean }> => {
    const order = await lockOrder(tx, options.orderId)
    if (!order) throw new AppError('not_found')
    const [ticket] = await ticketsOfOrder(tx, order.id, [options.identifier])
    if (!ticket) throw new AppError('not_found', { message: 'The order has no ticket with this identifier' })
    if (ticket.voidedAt) return { order: (await loadOrderViews(tx, options.codes, [order]))[0]!, changed: false }

    await voidTickets(tx, stock, order, [ticket.id], options.codes)
    await recordAudit(tx, options.actor, {
      action: 'adm.ticket.voided',
      target: { type: 'order', id: order.id },
      sellerId: order.sellerId,
      data: { identifier: ticket.identifier, inventory_id: ticket.inventoryId },
    })
    const view = (await loadOrderViews(tx, options.codes, [order]))[0]!
    await recordWebhookEvents(tx, order.sellerId, ticketEvents('ticket.voided', view, [ticket.identifier]))
    return { order: view, changed: true }
  })
