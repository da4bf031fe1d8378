import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { Locale } from '../sellers/seller-settings.js'
import { getOrder, type GetOrderOptions } from './get-order.js'
import { ticketPrintRows } from './orders.repo.js'
import { ticketsPdf } from './ticket-images.js'

export type PrintOrderTicketsOptions = GetOrderOptions & {
  /** The seller's language (docs/seating.md: labels in the seller's locale, one language per page). */
  locale: Locale
}

/**
 * The order's valid tickets as a PDF, one page each (docs/door.md): what an email attaches and a
 * buyer prints, in the seller's language. An order of this seller (and affiliate) only, as GET
 * /orders/{id}; one without a valid ticket (cancelled, every ticket voided) has nothing to print: 404. An order
 * not paid (pending, or expired unpaid) has no codes: 409 order_pending (docs/payments.md).
 */
export async function printOrderTickets(db: Db, { locale, ...options }: PrintOrderTicketsOptions): Promise<Uint8Array> {
  const order = await getOrder(db, options)
  if (order.status === 'pending' || order.status === 'expired') throw new AppError('order_pending')
  const valid = order.tickets.filter((ticket) => ticket.status === 'valid')
  if (valid.length === 0) throw new AppError('not_found', { message: 'The order has no valid ticket to print' })
  const details = new Map((await ticketPrintRows(db, order.id)).map((row) => [row.identifier, row]))
  const sheets = valid.map((ticket) => {
    const row = details.get(ticket.identifier)!
    return {
      code: ticket.code!,
      identifier: ticket.identifier,
      event: row.event,
      date: row.date,
      time: row.time,
      doorsTime: row.doorsTime,
      venue: row.venue,
      inventory: row.inventory,
      variant: ticket.variant,
      holder: row.holder,
      seat: ticket.seat,
    }
  })
  return ticketsPdf(sheets, { orderId: order.id, locale })
}
