import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import { decide } from '../orders/order-states.js'
import { loadOrderViews } from '../orders/order-view.js'
import { endOrder, ticketsOfOrder, voidTickets } from '../orders/order-voids.js'
import { lockOrder } from '../orders/orders.repo.js'
import type { ReleasedTicket } from '../orders/release-order.js'
import { orderEvent, recordWebhookEvents, ticketEvents } from '../webhooks/webhook-events.js'
import { toRefundView, type RefundView } from './payment-views.js'
import { emailRefund, refundableOf, refundCreatedEvents, writeRefund } from './write-refund.js'

export type RefundOrderOptions = {
  /** Signs the tickets' codes of the order in the webhook events. */
  codes: TicketCodes
  orderId: string
  /** Centavos, ≥ 1 (the schema refuses less). */
  amount: number
  /** Identifiers of tickets of the order it pays back: voided now. Absent: money only, or, for everything left, the whole order. */
  tickets?: readonly string[] | undefined
  reason: string
  /** The provider's reference of a refund executed already: `done` at once. */
  reference?: string | null | undefined
  actor: AuditActor
}

/**
 * A refund of an order (docs/payments.md), decided under the order's lock, which every refund takes:
 * however many arrive at once, they never add up to more than what is left to refund
 * (`paid_total − refunded_total −` pending refunds; beyond it 409 `refund_exceeds_paid` with
 * `details.refundable`). Its amount need not be the tickets' value: fees are the seller's call.
 *
 * The tickets it names are voided now, as a void does (`voidTickets`); an identifier the order
 * does not have: 404 with `details` naming it; a ticket voided already: 409 `ticket_voided` with
 * `details.tickets`, so that a retried refund never pays the same tickets twice. Naming no
 * tickets, a refund of everything left ends the order (`decide(…, 'refund')`: `cancelled`, its
 * tickets back on sale); of less, it moves money only.
 *
 * It is `pending` until the partner confirms it (confirm-refund.ts), or `done` at once with a
 * `reference`: then booked in the ledger and in `refunded_total`. Webhooks `refund.created`
 * (`refund.done` too when done, `order.cancelled` or `ticket.voided` for what it ended) and the
 * buyer's email are written with it.
 */
export const refundOrder = (db: Db, options: RefundOrderOptions) =>
  freeingTickets(db, async (tx, stock): Promise<RefundView> => {
    const order = await lockOrder(tx, options.orderId)
    if (!order) throw new AppError('not_found')
    const named = options.tickets ? await ticketsNamed(tx, order.id, options.tickets) : []

    const refundable = await refundableOf(tx, order)
    if (options.amount > refundable) throw new AppError('refund_exceeds_paid', { details: { refundable } })
    const verdict = !options.tickets && options.amount === refundable ? decide(order.status, 'refund') : undefined

    let current = order
    let released: ReleasedTicket[] = []
    if (verdict && 'to' in verdict) {
      const ended = await endOrder(tx, stock, order, verdict.to, options.codes)
      current = ended.order
      released = ended.tickets
    } else if (named.length > 0) {
      released = await voidTickets(
        tx,
        stock,
        order,
        named.map((ticket) => ticket.id),
        options.codes,
      )
    }
    const written = await writeRefund(tx, current, {
      amount: options.amount,
      tickets: options.tickets ? [...options.tickets] : released.map((ticket) => ticket.identifier),
      reason: options.reason,
      reference: options.reference ?? null,
    })
    const refund = toRefundView(written.refund)
    await recordAudit(tx, options.actor, {
      action: 'adm.refund.created',
      target: { type: 'order', id: order.id },
      sellerId: order.sellerId,
      data: { refund_id: refund.id, amount: refund.amount, tickets: refund.tickets, status: refund.status, order_status: written.order.status },
    })
    const view = (await loadOrderViews(tx, options.codes, [written.order]))[0]!
    const ended = current.status !== order.status ? [orderEvent('order.cancelled', view)] : []
    const voided = options.tickets ? ticketEvents('ticket.voided', view, options.tickets) : []
    await recordWebhookEvents(tx, order.sellerId, [...ended, ...voided, ...refundCreatedEvents(refund, view.affiliate_code)])
    await emailRefund(tx, view, refund)
    return refund
  })

/** The tickets of the order a refund names, each valid: else 404 for those it does not have, 409 `ticket_voided` for those voided already. */
async function ticketsNamed(tx: Db, orderId: string, identifiers: readonly string[]) {
  const found = await ticketsOfOrder(tx, orderId, identifiers)
  const unknown = identifiers.flatMap((identifier, n) => (found.some((ticket) => ticket.identifier === identifier) ? [] : [n]))
  if (unknown.length > 0) {
    throw new AppError('not_found', {
      message: 'The order has no ticket with this identifier',
      details: unknown.map((n) => ({ path: `tickets.${n}`, message: 'the order has no ticket with this identifier' })),
    })
  }
  const voided = found.filter((ticket) => ticket.voidedAt !== null)
  if (voided.length > 0) throw new AppError('ticket_voided', { details: { tickets: voided.map((ticket) => ticket.identifier).sort() } })
  return found
}
