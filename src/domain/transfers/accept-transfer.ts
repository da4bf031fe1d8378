import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { enqueueEmails } from '../../platform/mail/outbox.repo.js'
import type { AuditActor } from '../audit/record-audit.js'
import { findActiveKeyRow } from '../checkin/ticket-keys.repo.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { orderConfirmedEmail, orderEmailContexts, orderLinkOf } from '../orders/order-emails.js'
import { newOrderToken, type OrderToken } from '../orders/order-tokens.js'
import { loadOrderViews, type OrderView, toShownItemView } from '../orders/order-view.js'
import { lockOrder } from '../orders/orders.repo.js'
import { orderItems, orders, tickets } from '../orders/orders.table.js'
import { newTicketIdentifier } from '../orders/ticket-identifier.js'
import { recordWebhookEvents } from '../webhooks/webhook-events.js'
import { refusal } from './offer-transfer.js'
import { transferAnsweredEmail } from './transfer-emails.js'
import { auditTransfer, soldItem } from './transfer-records.js'
import { toTransferView, transferStatus, type TransferRow, type TransferView } from './transfer-view.js'
import { endTransferRow, findTransferByToken, lockTransferableTicket, lockTransferByToken, verifiedCustomerByEmail } from './transfers.repo.js'

export type AnswerTransferOptions = {
  sellerId: string
  /** The keyed hash of the token the recipient was emailed. */
  tokenHash: string
  actor: AuditActor
}

export type AcceptTransferOptions = AnswerTransferOptions & {
  codes: TicketCodes
  tokenHmac: Buffer
  /** The recipient's account, when the call carries its customer token. */
  customer: { id: string; email: string } | null
}

export type AcceptedTransfer = { transfer: TransferView; ticket: OrderView['tickets'][number]; order_id: string }

/** The unknown token's answer: a used, cancelled, declined or expired one answers the same (docs/transfers.md). */
const unknownTransfer = () => new AppError('not_found', { message: 'No pending transfer has this token' })

/** The seller's pending transfer with this token, locked; anything else is the unknown token's 404. */
export async function lockPendingTransfer(tx: Db, sellerId: string, tokenHash: string): Promise<TransferRow> {
  const transfer = await lockTransferByToken(tx, sellerId, tokenHash)
  if (!transfer || transferStatus(transfer) !== 'pending') throw unknownTransfer()
  return transfer
}

/**
 * The sender's order of the token's transfer, locked, then the transfer, locked and pending: the
 * order first, as a void, a refund or a cancellation of it locks the order before the transfers
 * it ends, so that the two never wait for each other.
 */
async function lockOrderAndTransfer(tx: Db, sellerId: string, tokenHash: string) {
  const named = await findTransferByToken(tx, sellerId, tokenHash)
  const from = named && (await lockOrder(tx, named.orderId))
  if (!from) throw unknownTransfer()
  return { from, transfer: await lockPendingTransfer(tx, sellerId, tokenHash) }
}

/**
 * The recipient accepts (docs/transfers.md). Under the sender's order's lock and the transfer's (a
 * second accept of the token waits, then finds it accepted: 404), then the ticket's (a void, a
 * refund and a scan take those), the ticket must still be transferable. It then moves: the old
 * ticket is marked given away (its identifier and codes revoked; the feed returns it as
 * `revoked`), and a new ticket, with a new identifier and code and the same seat, is issued in a
 * new order of the recipient (`source: transfer`, total 0): the accepting customer's when the call
 * carries a customer token, else the seller's account that verified the recipient's email, else a
 * guest order whose token is emailed with the ticket. The ticket keeps pointing at the sale's own
 * ticket (`origin_ticket_id`), so undoing the sale voids it. No ledger row: a transfer sells nothing.
 * A ticket that can no longer be given (voided, checked in, given, too near its date) ends the
 * transfer as `cancelled` and answers why (409).
 */
export async function acceptTransfer(db: Db, options: AcceptTransferOptions): Promise<AcceptedTransfer> {
  const outcome = await db.transaction(async (tx): Promise<AcceptedTransfer | { refused: AppError }> => {
    const { from, transfer } = await lockOrderAndTransfer(tx, options.sellerId, options.tokenHash)
    const ticket = await lockTransferableTicket(tx, from.id, transfer.identifier)
    if (!ticket) throw unknownTransfer()
    const refused = refusal(from, ticket)
    if (refused) {
      // It never can be now (voided, given, checked in, too near its date): the transfer ends, and the answer says why.
      await endTransferRow(tx, transfer.id, 'cancelled')
      return { refused }
    }

    const account = options.customer ?? (await verifiedCustomerByEmail(tx, options.sellerId, transfer.recipientEmail)) ?? null
    const orderToken: OrderToken | null = account ? null : newOrderToken(options.tokenHmac)
    const orderId = randomUUID()
    const [created] = await tx
      .insert(orders)
      .values({
        id: orderId,
        sellerId: from.sellerId,
        basketId: null,
        affiliateId: null,
        affiliateCode: null,
        customerId: account?.id ?? null,
        buyerEmail: account?.email ?? transfer.recipientEmail,
        buyerName: transfer.recipientName,
        orderTokenHash: orderToken?.hash ?? null,
        status: 'confirmed',
        source: 'transfer',
        transferredFrom: { order_id: from.id, identifier: ticket.identifier },
        subtotal: 0,
        discount: 0,
        interest: 0,
        total: 0,
        paymentMethod: null,
        installments: 1,
        installmentAmount: 0,
        paidTotal: 0,
      })
      .returning()
    // The item it was sold as: copied at no price into the new order, and described in the sender's email.
    const item = await soldItem(tx, ticket.order_item_id)
    const { time: _time, doorsTime: _doorsTime, venue: _venue, ...sold } = item!
    const itemId = randomUUID()
    await tx.insert(orderItems).values({
      ...sold,
      id: itemId,
      orderId,
      quantity: 1,
      unitPrice: 0,
      discount: 0,
      total: 0,
      couponId: null,
      coupon: null,
      seats: sold.seats?.filter((seat) => seat.id === ticket.seat_id) ?? null,
      position: 0,
    })
    // The old ticket gives up its seat before the new one takes it (a seat has one valid ticket).
    await tx.update(tickets).set({ transferredAt: sql`now()`, changedXid: sql`pg_current_xact_id()` }).where(eq(tickets.id, ticket.id))
    await options.codes.ensureKeys(tx, from.sellerId)
    const key = await findActiveKeyRow(tx, from.sellerId)
    const identifier = newTicketIdentifier()
    const [issued] = await tx
      .insert(tickets)
      .values({
        orderId,
        orderItemId: itemId,
        inventoryId: ticket.inventory_id,
        identifier,
        seatId: ticket.seat_id,
        signingKeyId: key?.id ?? null,
        holderName: transfer.recipientName,
        originTicketId: ticket.origin_ticket_id ?? ticket.id,
      })
      .returning({ id: tickets.id })
    const ended = await endTransferRow(tx, transfer.id, 'accepted', { newTicketId: issued!.id, newOrderId: orderId })

    await auditTransfer(tx, options.actor, 'stf.ticket.transferred', transfer, { new_identifier: identifier, order_id: orderId })
    await recordWebhookEvents(tx, from.sellerId, [
      {
        type: 'ticket.transferred',
        data: { old_identifier: ticket.identifier, identifier, from_order_id: from.id, order_id: orderId },
        affiliateCode: from.affiliateCode,
        orderingKey: from.id,
      },
    ])
    const [received] = await loadOrderViews(tx, options.codes, [created!])
    const contexts = await orderEmailContexts(tx, [orderId, from.id])
    const mine = contexts.get(orderId)
    const theirs = contexts.get(from.id)
    const emails = [
      ...(mine
        ? [orderConfirmedEmail(orderToken ? { ...mine, link: orderLinkOf(mine.seller.storefrontUrl, orderId, orderToken.token) } : mine, received!)]
        : []),
      ...(theirs
        ? [transferAnsweredEmail(theirs, { accepted: true, recipient: transfer.recipientName, identifier: ticket.identifier, item: toShownItemView(item!) })]
        : []),
    ]
    await enqueueEmails(tx, emails)
    return { transfer: toTransferView(ended), ticket: received!.tickets[0]!, order_id: orderId }
  })
  if ('refused' in outcome) throw outcome.refused
  return outcome
}
