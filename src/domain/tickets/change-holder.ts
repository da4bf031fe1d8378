import type { Db } from '../../platform/db/database.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { recordWebhookEvents } from '../webhooks/webhook-events.js'
import { codeChangeRefusal, holderChangeRefusal, refused, sameHolder } from './holder.js'
import { lockTicketOf, type TicketOwner, ticketView, type TicketView } from './locked-ticket.js'
import { bumpTicketCode } from './tickets.repo.js'

export type ChangeHolderOptions = {
  /** Signs the ticket's new code. */
  codes: TicketCodes
  /** The buyer's order (as the storefront's caller sees it), or `staff`. */
  owner: TicketOwner
  identifier: string
  /** `name` trimmed, 1..200 characters; `document` 3..20 letters or digits, or null. */
  holder: { name: string; document: string | null }
  /** The seller's `holder_changes_max`: how many changes its buyers may make (staff are not limited). */
  holderChangesMax: number
  actor: AuditActor
}

/**
 * Names a ticket's holder (docs/transfers.md): the holder's name is printed and checked at the
 * door. The ticket gets a new code (`code_version` + 1, so the code shown before is refused
 * `invalid` at the gates, online now and offline once the feed returns the ticket), and the
 * buyer's change counts against the seller's `holder_changes_max` (staff's do not). Only a valid
 * ticket, and only until its first check-in (409 `holder_locked`; `holderChangeRefusal`).
 * Naming the holder it has changes nothing and answers it again.
 *
 * One transaction locks the order, then the ticket: a void or a cancellation of the order waits
 * or is waited for, and so does a scan of the ticket (it locks the same row), so either the
 * check-in came first and the change is refused, or the change did and the old code is refused.
 * A `ticket.holder_changed` webhook event (the holder's name only, never the document) and an
 * audit entry go with it. Answers the ticket as its order shows it: the document masked on the
 * storefront, whole for staff.
 */
export const changeHolder = (db: Db, options: ChangeHolderOptions): Promise<TicketView> =>
  db.transaction(async (tx) => {
    const by = options.owner === 'staff' ? 'staff' : 'buyer'
    const documents = by === 'staff' ? 'whole' : 'masked'
    const { order, ticket, state } = await lockTicketOf(tx, options.owner, options.identifier)
    const current = { name: ticket.holderName ?? order.buyerName, document: ticket.holderDocument }
    const dead = codeChangeRefusal(state.status)
    if (dead) throw refused(dead)
    // The holder it has, named again (a retried PUT): no change, answered as it is.
    if (sameHolder(current, options.holder)) return (await ticketView(tx, options.codes, order, ticket.identifier, documents)).ticket
    const refusal = holderChangeRefusal(state, by, options.holderChangesMax)
    if (refusal) throw refused(refusal)

    const codeVersion = await bumpTicketCode(tx, ticket.id, { holder: options.holder, countsAsBuyerChange: by === 'buyer' })
    await recordAudit(tx, options.actor, {
      action: `${by === 'staff' ? 'adm' : 'stf'}.ticket.holder_changed`,
      target: { type: 'order', id: order.id },
      sellerId: order.sellerId,
      data: { identifier: ticket.identifier, code_version: codeVersion, from: current.name, to: options.holder.name },
    })
    await recordWebhookEvents(tx, order.sellerId, [
      {
        type: 'ticket.holder_changed',
        data: { identifier: ticket.identifier, order_id: order.id, holder: { name: options.holder.name }, code_version: codeVersion },
        affiliateCode: order.affiliateCode,
        orderingKey: order.id,
      },
    ])
    return (await ticketView(tx, options.codes, order, ticket.identifier, documents)).ticket
  })
