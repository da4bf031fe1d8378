import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { checkins } from '../checkin/checkin.table.js'
import { tickets } from '../orders/orders.table.js'

/**
 * The ticket of this order with this identifier, its row locked until the transaction ends, and
 * whether it entered through a gate. A scan locks the same row (`lockScannedTicketsQuery`): a
 * change of its code waits for a scan under way and then reads its check-in, and a scan waits
 * for the change and then reads the new `code_version`, so an old code and a new holder never
 * both pass. The entry is read after the lock is granted, so it sees every scan committed before.
 */
export async function lockOrderTicket(tx: Db, orderId: string, identifier: string) {
  const [ticket] = await tx
    .select()
    .from(tickets)
    .where(and(eq(tickets.orderId, orderId), eq(tickets.identifier, identifier)))
    .for('update')
  if (!ticket) return undefined
  const [entered] = await tx
    .select({ id: checkins.id })
    .from(checkins)
    .where(and(eq(checkins.ticketId, ticket.id), eq(checkins.type, 'entry'), eq(checkins.successful, true), sql`${checkins.annulledAt} is null`))
    .limit(1)
  return { ticket, checkedIn: entered !== undefined }
}

/** The order that holds the ticket with this identifier (any seller's: for staff), or undefined. */
export const findTicketOrderId = async (db: Db, identifier: string): Promise<string | undefined> =>
  (await db.select({ orderId: tickets.orderId }).from(tickets).where(eq(tickets.identifier, identifier)))[0]?.orderId

/** What a new code of a ticket changes besides its version: its holder, and whether its buyer's changes count one more. */
export type NewCode = { holder?: { name: string; document: string | null }; countsAsBuyerChange?: boolean }

/**
 * Gives the ticket a new code: `code_version` goes up (the codes signed before are refused at the
 * gates), the door's feed returns it (`changed_xid`), and with `holder` it names its new holder.
 * Answers the new version.
 */
export const bumpTicketCode = async (tx: Db, ticketId: string, change: NewCode = {}): Promise<number> =>
  (
    await tx
      .update(tickets)
      .set({
        codeVersion: sql`${tickets.codeVersion} + 1`,
        changedXid: sql`pg_current_xact_id()`,
        ...(change.holder ? { holderName: change.holder.name, holderDocument: change.holder.document } : {}),
        ...(change.countsAsBuyerChange ? { holderChanges: sql`${tickets.holderChanges} + 1` } : {}),
      })
      .where(eq(tickets.id, ticketId))
      .returning({ codeVersion: tickets.codeVersion })
  )[0]!.codeVersion
