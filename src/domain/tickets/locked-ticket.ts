import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { visibleOrder } from '../orders/get-order.js'
import { type DocumentsShown, loadOrderViews, type OrderView, ticketStatus } from '../orders/order-view.js'
import { lockOrder, lockOrderWhere, type OrderRow } from '../orders/orders.repo.js'
import type { TicketCodeState } from './holder.js'
import { findTicketOrderId, lockOrderTicket } from './tickets.repo.js'

/**
 * Whose ticket is asked for: an order of the storefront's caller (its seller, under its affiliate,
 * of its customer or opened by its token: another's is not found), or, for staff, any ticket by
 * its identifier (staff read every seller's orders).
 */
export type TicketOwner =
  | {
      sellerId: string
      affiliateId: string | null
      /** The order's customer; null: the order its token opens. */
      customerId: string | null
      orderTokenHash: string | null
      orderId: string
    }
  | 'staff'

/**
 * Locks the order, then its ticket (the order first, as a void and a cancellation lock it, so
 * none of them runs between this read and the change), and reads what a change of its code is
 * judged on. An order the caller may not see, or a ticket it does not have: 404 `not_found`.
 */
export async function lockTicketOf(tx: Db, owner: TicketOwner, identifier: string) {
  // A storefront caller opens an order as its customer or with its token, never by its id alone.
  if (owner !== 'staff' && owner.customerId === null && owner.orderTokenHash === null) throw new AppError('not_found')
  const order =
    owner === 'staff' ? await lockOrderOfTicket(tx, identifier) : await lockOrderWhere(tx, visibleOrder({ ...owner, affiliate: affiliateOf(owner) }))
  if (!order) throw new AppError('not_found')
  const locked = await lockOrderTicket(tx, order.id, identifier)
  if (!locked) throw new AppError('not_found', { message: 'The order has no ticket with this identifier' })
  const state: TicketCodeState = {
    status: ticketStatus(order.status, locked.ticket.voidedAt !== null, locked.ticket.transferredAt !== null),
    checkedIn: locked.checkedIn,
    holderChanges: locked.ticket.holderChanges,
  }
  return { order, ticket: locked.ticket, state }
}

const affiliateOf = (owner: Exclude<TicketOwner, 'staff'>) => (owner.affiliateId ? { id: owner.affiliateId } : null)

async function lockOrderOfTicket(tx: Db, identifier: string) {
  const orderId = await findTicketOrderId(tx, identifier)
  return orderId === undefined ? undefined : lockOrder(tx, orderId)
}

/** The ticket as its order answers it (signed; the holder's document whole for the back office only). */
export async function ticketView(tx: Db, codes: TicketCodes, order: OrderRow, identifier: string, documents: DocumentsShown) {
  const [view] = await loadOrderViews(tx, codes, [order], documents)
  return { order: view!, ticket: view!.tickets.find((ticket) => ticket.identifier === identifier)! }
}

export type TicketView = OrderView['tickets'][number]
