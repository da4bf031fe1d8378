import { inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { enqueueEmails } from '../../platform/mail/outbox.repo.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { orderEmailContexts } from '../orders/order-emails.js'
import { loadOrderViews } from '../orders/order-view.js'
import { orders } from '../orders/orders.table.js'
import { recordWebhookEvents, ticketEvents } from '../webhooks/webhook-events.js'
import { cancelPendingTransfersOf } from './transfers.repo.js'
import { transferredTicketVoidedEmail } from './transfer-emails.js'

/**
 * A sale undone undoes its transfers (docs/transfers.md): when tickets of an order are voided (a
 * void, a refund, a cancellation), the tickets they were given on as are voided too, wherever
 * they went, and their pending transfers end. The ticket's holder now (the last recipient) is
 * told by email, and its order's `ticket.voided` event is written. Nothing goes back on sale here:
 * the sale's own ticket did, once. Call it in the transaction that voided `voided`.
 */
export async function voidGivenTickets(tx: Db, codes: TicketCodes, voided: readonly { id: string }[]): Promise<void> {
  if (voided.length === 0) return
  const ids = voided.map((ticket) => ticket.id)
  // Their transfers first, then the tickets: an accept of one of them locks its transfer before
  // its ticket, and this statement, run first, sees what such an accept committed meanwhile.
  await cancelPendingTransfersOf(tx, ids)
  const { rows } = await tx.execute(sql`
    update tickets set voided_at = now(), changed_xid = pg_current_xact_id()
    where origin_ticket_id = any(${sql.param(ids)}::uuid[]) and voided_at is null
    returning id, order_id, identifier, transferred_at is null as held`)
  const given = rows as { id: string; order_id: string; identifier: string; held: boolean }[]
  const held = given.filter((ticket) => ticket.held)
  if (held.length === 0) return
  const orderRows = await tx
    .select()
    .from(orders)
    .where(
      inArray(
        orders.id,
        held.map((ticket) => ticket.order_id),
      ),
    )
  const views = await loadOrderViews(tx, codes, orderRows)
  const contexts = await orderEmailContexts(
    tx,
    views.map((view) => view.id),
  )
  for (const view of views) {
    const identifiers = held.filter((ticket) => ticket.order_id === view.id).map((ticket) => ticket.identifier)
    await recordWebhookEvents(tx, view.seller_id, ticketEvents('ticket.voided', view, identifiers))
    const context = contexts.get(view.id)
    if (!context) continue
    await enqueueEmails(
      tx,
      identifiers.map((identifier) => {
        const ticket = view.tickets.find((t) => t.identifier === identifier)!
        return transferredTicketVoidedEmail(context, { identifier, item: view.items.find((item) => item.inventory_id === ticket.inventory_id)! })
      }),
    )
  }
}
