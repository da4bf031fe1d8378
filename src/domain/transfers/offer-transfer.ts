import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { enqueueEmail } from '../../platform/mail/outbox.repo.js'
import type { AuditActor } from '../audit/record-audit.js'
import { visibleOrder } from '../orders/get-order.js'
import { orderEmailContexts } from '../orders/order-emails.js'
import { lockOrderWhere, type OrderRow } from '../orders/orders.repo.js'
import { newTransferToken } from './transfer-tokens.js'
import { transferOfferedEmail } from './transfer-emails.js'
import { auditTransfer, soldItemView } from './transfer-records.js'
import { toTransferView, type TransferView } from './transfer-view.js'
import { expireStaleTransfers, findPendingTransfer, insertTransfer, lockTransferableTicket, type TransferableTicket } from './transfers.repo.js'
import { asDate } from '../checkin/list-tickets.repo.js'

/** Who may give an order's tickets: its customer, or whoever holds its token (a guest's order). */
export type OrderHolder = { sellerId: string; orderId: string; customerId: string | null; orderTokenHash: string | null }

export type OfferTransferOptions = OrderHolder & {
  tokenHmac: Buffer
  identifier: string
  recipient: { email: string; name: string }
  actor: AuditActor
}

/**
 * Why a ticket cannot be given now (docs/transfers.md), or null: a ticket of an order awaiting
 * payment is `order_pending`; a voided, expired or given-away ticket, one checked in, one whose
 * inventory is not `transferable` or whose `transfer_closes_hours` before its date have come:
 * `ticket_not_transferable`, saying which.
 */
export function refusal(order: Pick<OrderRow, 'status'>, ticket: TransferableTicket): AppError | null {
  if (order.status === 'pending') return new AppError('order_pending')
  const why =
    order.status !== 'confirmed' || ticket.voided
      ? 'The ticket is not valid'
      : ticket.transferred
        ? 'The ticket was transferred already'
        : ticket.checked_in
          ? 'The ticket was checked in'
          : !ticket.transferable
            ? 'Tickets of this inventory are not transferable'
            : !ticket.open
              ? 'Transfers of this ticket have closed: its date is too near'
              : null
  return why === null ? null : new AppError('ticket_not_transferable', { message: why })
}

/**
 * Offers one ticket of an order to an email and a name (docs/transfers.md), under the order's and
 * the ticket's locks (a scan, a void and an accept lock them too): one pending transfer per
 * ticket (409 `transfer_pending`), never to the order's own buyer (400). The recipient is emailed
 * a link with the transfer's token, in the seller's language; the transfer expires in 72 hours
 * or at the ticket's date, whichever is first.
 */
export async function offerTransfer(db: Db, options: OfferTransferOptions): Promise<TransferView> {
  return db.transaction(async (tx) => {
    const order = await lockOrderWhere(tx, visibleOrder({ ...options, affiliate: null }))
    if (!order) throw new AppError('not_found')
    if (options.recipient.email.toLowerCase() === order.buyerEmail.toLowerCase()) {
      throw new AppError('validation_error', { details: [{ path: 'email', message: 'is the order’s own buyer: a transfer goes to someone else' }] })
    }
    const ticket = await lockTransferableTicket(tx, order.id, options.identifier)
    if (!ticket) throw new AppError('not_found', { message: 'The order has no ticket with this identifier' })
    const refused = refusal(order, ticket)
    if (refused) throw refused
    await expireStaleTransfers(tx, ticket.id)
    if (await findPendingTransfer(tx, ticket.id)) throw new AppError('transfer_pending')

    const token = newTransferToken(options.tokenHmac)
    const transfer = await insertTransfer(tx, {
      sellerId: order.sellerId,
      ticketId: ticket.id,
      orderId: order.id,
      identifier: ticket.identifier,
      recipientEmail: options.recipient.email,
      recipientName: options.recipient.name,
      tokenHash: token.hash,
      expiresAt: asDate(ticket.expires_at),
    })
    await auditTransfer(tx, options.actor, 'stf.ticket.transfer_offered', transfer)
    const context = (await orderEmailContexts(tx, [order.id])).get(order.id)
    const item = await soldItemView(tx, ticket.order_item_id)
    if (context && item) {
      await enqueueEmail(
        tx,
        transferOfferedEmail(context, {
          to: options.recipient,
          sender: order.buyerName,
          item,
          expiresAt: transfer.expiresAt,
          token: token.token,
        }),
      )
    }
    return toTransferView(transfer)
  })
}
