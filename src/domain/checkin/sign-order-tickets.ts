import type { Db } from '../../platform/db/database.js'
import { codeVersionClaim } from './ticket-code-payload.js'
import type { TicketCodes } from './ticket-codes.js'

/** The statuses of a ticket whose order is not paid: no code, and refused at the door as `unpaid`. */
export const UNPAID_TICKET_STATUSES: ReadonlySet<string> = new Set(['pending', 'expired'])
/** The statuses of a ticket that has no code: unpaid, or given away (its codes are revoked, the new ticket has its own). */
const CODELESS_TICKET_STATUSES: ReadonlySet<string> = new Set([...UNPAID_TICKET_STATUSES, 'transferred'])

type OrderLike = {
  items: readonly { inventory_id: string; event_id: string; date: string }[]
  tickets: readonly {
    identifier: string
    inventory_id: string
    status: string
    variant: string | null
    seat: { zone: string; row: string; number: string } | null
    signing_key_id: string | null
    code_version: number
  }[]
}

/**
 * The order with each ticket's signed `code` (docs/door.md), the payload of its QR, signed by the
 * key the ticket names. Codes are made when an order is answered, never stored: signing is
 * deterministic, so a ticket's code is the same on every read. Keys not yet opened in this
 * process are read through `db`, the order's transaction when it has one. A seated ticket's code
 * names its seat (`s`: zone, row, number). A ticket of an unpaid order (`pending`, `expired`) has
 * no code (docs/payments.md): null, nor does a ticket given away (docs/transfers.md). A ticket's
 * `code_version` above 0 is signed as the claim `n`.
 */
export async function withTicketCodes<O extends OrderLike>(
  db: Db,
  codes: TicketCodes,
  sellerId: string,
  order: O,
): Promise<Omit<O, 'tickets'> & { tickets: (Omit<O['tickets'][number], 'signing_key_id'> & { code: string | null })[] }> {
  type Signed = Omit<O['tickets'][number], 'signing_key_id'> & { code: string | null }
  const itemOf = new Map(order.items.map((item) => [item.inventory_id, item]))
  const sign = await codes.signer(
    db,
    sellerId,
    order.tickets.map((ticket) => ticket.signing_key_id),
  )
  const tickets = order.tickets.map(({ signing_key_id, ...ticket }) => {
    const item = itemOf.get(ticket.inventory_id)!
    if (CODELESS_TICKET_STATUSES.has(ticket.status)) return <Signed>{ ...ticket, code: null }
    const n = codeVersionClaim(ticket.code_version)
    return <Signed>{
      ...ticket,
      code: sign(
        {
          tid: ticket.identifier,
          sid: sellerId,
          eid: item.event_id,
          inv: ticket.inventory_id,
          d: item.date,
          v: ticket.variant,
          ...(ticket.seat ? { s: [ticket.seat.zone, ticket.seat.row, ticket.seat.number] } : {}),
          ...(n === undefined ? {} : { n }),
        },
        signing_key_id,
      ),
    }
  })
  return { ...order, tickets }
}
