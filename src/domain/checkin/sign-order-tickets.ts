import type { TicketCodes } from './ticket-codes.js'

type OrderLike = {
  items: readonly { inventory_id: string; event_id: string; date: string }[]
  tickets: readonly { identifier: string; inventory_id: string; variant: string | null }[]
}

/**
 * The order with each ticket's signed `code` (API.md 7.5), the payload of its QR. Codes are made
 * when an order is answered, never stored: signing is deterministic, so a ticket's code is the
 * same on every read.
 */
export function withTicketCodes<O extends OrderLike>(
  codes: TicketCodes,
  sellerId: string,
  order: O,
): Omit<O, 'tickets'> & { tickets: (O['tickets'][number] & { code: string })[] } {
  const itemOf = new Map(order.items.map((item) => [item.inventory_id, item]))
  const tickets = order.tickets.map((ticket) => {
    const item = itemOf.get(ticket.inventory_id)!
    return {
      ...ticket,
      code: codes.sign({ tid: ticket.identifier, sid: sellerId, eid: item.event_id, inv: ticket.inventory_id, d: item.date, v: ticket.variant }),
    }
  })
  return { ...order, tickets }
}
