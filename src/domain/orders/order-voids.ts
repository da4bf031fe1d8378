import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { TicketsFreed } from '../inventory/freeing-tickets.js'
import { insertLedgerRows, voidRows } from '../payments/ledger.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { voidGivenTickets } from '../transfers/given-tickets.js'
import { isSold } from './order-states.js'
import type { OrderRow } from './orders.repo.js'
import { orders, tickets, type OrderStatus } from './orders.table.js'
import { countByInventory, countByItem, releaseOrders, voidValidTickets, type ReleasedTicket } from './release-order.js'

/**
 * Tickets leaving an order (docs/payments.md): one by one (a void, a refund of some tickets) or all
 * with it (a cancellation, a withdrawal, a refund of everything left). Either way they go back on
 * sale (the waiting list first, §7.6), the door's feed hears of it (`changed_xid`), and when the
 * order had sold them for good the ledger writes their `void` rows, read under the order's lock.
 * The tickets they were given on as by transfers are voided with them (docs/transfers.md).
 */

/** The tickets of an order with these identifiers, as they are (voided or not); identifiers it does not have are left out. */
export const ticketsOfOrder = (tx: Db, orderId: string, identifiers: readonly string[]) =>
  tx
    .select()
    .from(tickets)
    .where(and(eq(tickets.orderId, orderId), inArray(tickets.identifier, [...identifiers])))

/**
 * Voids these tickets of a locked order and puts them back on sale; those voided already are left
 * as they are. The tickets of an order awaiting payment are not voided one by one (409
 * `order_pending`): cancel the order. Answers the tickets voided now.
 */
export async function voidTickets(tx: Db, stock: TicketsFreed, order: OrderRow, ticketIds: readonly string[], codes: TicketCodes): Promise<ReleasedTicket[]> {
  refuseTransferOrder(order)
  if (order.status === 'pending') {
    throw new AppError('order_pending', { message: 'This order awaits payment: cancel it rather than voiding its tickets one by one' })
  }
  if (ticketIds.length === 0) return []
  const voided = await voidValidTickets(tx, and(eq(tickets.orderId, order.id), inArray(tickets.id, [...ticketIds])))
  await stock.release(order.sellerId, countByInventory(voided))
  await writeVoids(tx, order, voided)
  await voidGivenTickets(tx, codes, voided)
  return voided
}

/**
 * An order of a transfer sold nothing (docs/transfers.md): its ticket is voided, refunded or
 * cancelled on the order that sold it (`transferred_from`), which voids it here too.
 */
export function refuseTransferOrder(order: Pick<OrderRow, 'source' | 'transferredFrom'>) {
  if (order.source === 'transfer') {
    throw new AppError('ticket_sold_elsewhere', {
      message: `This order holds a ticket given by a transfer: void, refund or cancel it on order ${order.transferredFrom?.order_id ?? ''}`,
      details: { transferred_from: order.transferredFrom },
    })
  }
}

/**
 * Ends a locked order with the status `decide` gave it (`cancelled`): its valid tickets go back
 * on sale and its coupon uses come back (`releaseOrders`), and the ledger voids what it had sold
 * (an order awaiting payment sold nothing: no rows). Answers the order as it is now, the tickets
 * released and the coupons whose uses came back.
 */
export async function endOrder(tx: Db, stock: TicketsFreed, order: OrderRow, to: OrderStatus, codes: TicketCodes) {
  refuseTransferOrder(order)
  const released = await releaseOrders(tx, stock, [order])
  await writeVoids(tx, order, released.tickets)
  await voidGivenTickets(tx, codes, released.tickets)
  const [ended] = await tx
    .update(orders)
    .set({ status: to, ...(to === 'cancelled' ? { cancelledAt: sql`now()` } : {}), updatedAt: sql`now()` })
    .where(eq(orders.id, order.id))
    .returning()
  return { order: ended!, tickets: released.tickets, couponIds: released.couponIds }
}

/** The ledger's `void` rows of tickets that left an order, when it had sold them. */
async function writeVoids(tx: Db, order: OrderRow, released: readonly ReleasedTicket[]) {
  if (isSold(order.status)) await insertLedgerRows(tx, await voidRows(tx, order.id, countByItem(released))).execute()
}
