import type { Db } from '../../platform/db/database.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { codeChangeRefusal, refused } from './holder.js'
import { lockTicketOf, ticketView, type TicketView } from './locked-ticket.js'
import { bumpTicketCode } from './tickets.repo.js'

export type ReissueTicketOptions = {
  /** Signs the ticket's new code. */
  codes: TicketCodes
  identifier: string
  actor: AuditActor
}

/**
 * Gives a ticket a new code under the same identifier (docs/transfers.md), e.g. after a photo of
 * its QR leaked: `code_version` + 1, so the code shown before is refused `invalid` at the gates,
 * online now and offline once the feed returns the ticket (it is marked changed). Its holder and
 * check-ins stay as they are: a ticket already inside may be re-issued too. Only a valid ticket
 * (`codeChangeRefusal`). The order and then the ticket are locked, as a holder change locks them,
 * so a scan of the ticket is judged either before (the old code) or after (the new one). Audited;
 * no webhook event (the holder did not change). Answers the ticket, the document whole (staff).
 */
export const reissueTicket = (db: Db, options: ReissueTicketOptions): Promise<TicketView> =>
  db.transaction(async (tx) => {
    const { order, ticket, state } = await lockTicketOf(tx, 'staff', options.identifier)
    const dead = codeChangeRefusal(state.status)
    if (dead) throw refused(dead)
    const codeVersion = await bumpTicketCode(tx, ticket.id)
    await recordAudit(tx, options.actor, {
      action: 'adm.ticket.reissued',
      target: { type: 'order', id: order.id },
      sellerId: order.sellerId,
      data: { identifier: ticket.identifier, code_version: codeVersion },
    })
    return (await ticketView(tx, options.codes, order, ticket.identifier, 'whole')).ticket
  })
