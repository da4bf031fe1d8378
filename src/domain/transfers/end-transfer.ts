import { and, eq, or } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { enqueueEmail } from '../../platform/mail/outbox.repo.js'
import { orderEmailContexts } from '../orders/order-emails.js'
import { findOrder } from '../orders/orders.repo.js'
import { orders, tickets } from '../orders/orders.table.js'
import { lockPendingTransfer, type AnswerTransferOptions } from './accept-transfer.js'
import type { OrderHolder } from './offer-transfer.js'
import { transferAnsweredEmail } from './transfer-emails.js'
import { auditTransfer, soldItemView } from './transfer-records.js'
import { toTransferView, transferStatus, type TransferView } from './transfer-view.js'
import { endTransferRow, lockTransfer } from './transfers.repo.js'
import type { AuditActor } from '../audit/record-audit.js'

/** The recipient declines (docs/transfers.md): the ticket stays the sender's, who is told by email. An unknown token: 404. */
export async function declineTransfer(db: Db, options: AnswerTransferOptions): Promise<TransferView> {
  return db.transaction(async (tx) => {
    const transfer = await lockPendingTransfer(tx, options.sellerId, options.tokenHash)
    const ended = await endTransferRow(tx, transfer.id, 'declined')
    await auditTransfer(tx, options.actor, 'stf.ticket.transfer_declined', transfer)
    const context = (await orderEmailContexts(tx, [transfer.orderId])).get(transfer.orderId)
    const [ticket] = await tx.select({ orderItemId: tickets.orderItemId }).from(tickets).where(eq(tickets.id, transfer.ticketId))
    const item = await soldItemView(tx, ticket?.orderItemId)
    if (context && item) {
      await enqueueEmail(tx, transferAnsweredEmail(context, { accepted: false, recipient: transfer.recipientName, identifier: transfer.identifier, item }))
    }
    return toTransferView(ended)
  })
}

/**
 * The sender takes the offer back (docs/transfers.md): only its order's customer, or whoever holds
 * its token, sees the transfer (another: 404). A transfer answered or expired already: 409
 * `transfer_ended`; one cancelled already answers as it is.
 */
export async function cancelTransfer(db: Db, options: Omit<OrderHolder, 'orderId'> & { transferId: string; actor: AuditActor }): Promise<TransferView> {
  return db.transaction(async (tx) => {
    const transfer = await lockTransfer(tx, options.sellerId, options.transferId)
    const senders = or(
      options.customerId ? eq(orders.customerId, options.customerId) : undefined,
      options.orderTokenHash ? eq(orders.orderTokenHash, options.orderTokenHash) : undefined,
    )
    if (!transfer || !senders || !(await findOrder(tx, and(eq(orders.id, transfer.orderId), senders)))) throw new AppError('not_found')
    const status = transferStatus(transfer)
    if (status === 'cancelled') return toTransferView(transfer)
    if (status !== 'pending') throw new AppError('transfer_ended', { message: `This transfer is ${status}` })
    const ended = await endTransferRow(tx, transfer.id, 'cancelled')
    await auditTransfer(tx, options.actor, 'stf.ticket.transfer_cancelled', transfer)
    return toTransferView(ended)
  })
}
