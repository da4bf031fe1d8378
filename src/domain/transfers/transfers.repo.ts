import { and, asc, eq, lte, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { customers } from '../customers/customers.table.js'
import { ticketTransfers } from '../orders/orders.table.js'
import { lockOrderTicket } from '../tickets/tickets.repo.js'
import type { TransferRow } from './transfer-view.js'

/*
 * The SQL of transfers (docs/transfers.md): a ticket as a transfer judges it, and the transfers
 * themselves. Every rule about when a ticket may change hands reads `TransferableTicket`.
 */

/** A ticket of an order as a transfer judges it: locked (FOR UPDATE), then its check-ins and its inventory's policy read. */
export type TransferableTicket = {
  id: string
  identifier: string
  order_item_id: string
  inventory_id: string
  seat_id: string | null
  origin_ticket_id: string | null
  voided: boolean
  transferred: boolean
  /** A successful entry on any list that was not annulled. */
  checked_in: boolean
  /** The inventory's `transferable`, and whether it is still before `transfer_closes_hours` before the ticket's date (or time). */
  transferable: boolean
  open: boolean
  /** When a transfer offered now would expire: in 72 hours, or at the ticket's date (or time), whichever is first. */
  expires_at: unknown
}

/** How long a recipient has to answer, at most. */
export const TRANSFER_LIFETIME_HOURS = 72

/**
 * The ticket of this order with this identifier, locked (a scan locks it too, so a transfer and
 * a check-in of one ticket happen one after the other), with what decides whether it may be
 * given now. "Before its date" counts to its date at 00:00, or its `time` when the inventory
 * says one, in the seller's time zone.
 */
export async function lockTransferableTicket(tx: Db, orderId: string, identifier: string): Promise<TransferableTicket | undefined> {
  // Locked, and its check-ins read after the lock, as a holder change reads them (`lockOrderTicket`).
  const locked = await lockOrderTicket(tx, orderId, identifier)
  if (!locked) return undefined
  const { ticket, checkedIn } = locked
  const { rows } = await tx.execute(sql`
    select inv.transferable,
           now() < starts.at - make_interval(hours => inv.transfer_closes_hours) as open,
           least(now() + make_interval(hours => ${TRANSFER_LIFETIME_HOURS}), starts.at) as expires_at
    from inventories inv
    join sellers s on s.id = inv.seller_id
    cross join lateral (select (inv.date + coalesce(inv.time::interval, interval '0')) at time zone s.timezone as at) starts
    where inv.id = ${ticket.inventoryId}::uuid`)
  const policy = (rows as { transferable: boolean; open: boolean; expires_at: unknown }[])[0]!
  return {
    id: ticket.id,
    identifier: ticket.identifier,
    order_item_id: ticket.orderItemId,
    inventory_id: ticket.inventoryId,
    seat_id: ticket.seatId,
    origin_ticket_id: ticket.originTicketId,
    voided: ticket.voidedAt !== null,
    transferred: ticket.transferredAt !== null,
    checked_in: checkedIn,
    ...policy,
  }
}

/** A ticket's pending transfers whose deadline passed are written down as `expired`: one may be offered again. */
export const expireStaleTransfers = (tx: Db, ticketId: string) =>
  tx
    .update(ticketTransfers)
    .set({ status: 'expired', endedAt: sql`${ticketTransfers.expiresAt}` })
    .where(and(eq(ticketTransfers.ticketId, ticketId), eq(ticketTransfers.status, 'pending'), lte(ticketTransfers.expiresAt, sql`now()`)))

export const findPendingTransfer = async (tx: Db, ticketId: string) =>
  (
    await tx
      .select()
      .from(ticketTransfers)
      .where(and(eq(ticketTransfers.ticketId, ticketId), eq(ticketTransfers.status, 'pending')))
  )[0]

export const insertTransfer = async (tx: Db, row: typeof ticketTransfers.$inferInsert): Promise<TransferRow> =>
  (await tx.insert(ticketTransfers).values(row).returning())[0]!

/** The seller's pending transfer with this token's hash, locked: two accepts of one token happen one after the other. */
export const lockTransferByToken = async (tx: Db, sellerId: string, tokenHash: string): Promise<TransferRow | undefined> =>
  (
    await tx
      .select()
      .from(ticketTransfers)
      .where(and(eq(ticketTransfers.sellerId, sellerId), eq(ticketTransfers.tokenHash, tokenHash)))
      .for('update')
  )[0]

/** The seller's transfer with this token's hash, as it is (no lock): which order to lock first. */
export const findTransferByToken = async (tx: Db, sellerId: string, tokenHash: string) =>
  (
    await tx
      .select({ orderId: ticketTransfers.orderId })
      .from(ticketTransfers)
      .where(and(eq(ticketTransfers.sellerId, sellerId), eq(ticketTransfers.tokenHash, tokenHash)))
  )[0]

/** The seller's transfer with this id, locked. */
export const lockTransfer = async (tx: Db, sellerId: string, id: string): Promise<TransferRow | undefined> =>
  (
    await tx
      .select()
      .from(ticketTransfers)
      .where(and(eq(ticketTransfers.sellerId, sellerId), eq(ticketTransfers.id, id)))
      .for('update')
  )[0]

/** Ends a transfer with this status. */
export const endTransferRow = async (
  tx: Db,
  id: string,
  status: 'accepted' | 'declined' | 'cancelled',
  accepted?: { newTicketId: string; newOrderId: string },
) =>
  (
    await tx
      .update(ticketTransfers)
      .set({ status, endedAt: sql`now()`, ...(accepted ?? {}) })
      .where(eq(ticketTransfers.id, id))
      .returning()
  )[0]!

/** An order's transfers, oldest first. */
export const orderTransfers = (db: Db, orderId: string) =>
  db.select().from(ticketTransfers).where(eq(ticketTransfers.orderId, orderId)).orderBy(asc(ticketTransfers.createdAt), asc(ticketTransfers.id))

/**
 * The pending transfers of these tickets, and of the tickets given on from them, end as
 * `cancelled`: a ticket voided is no longer to be given.
 */
export const cancelPendingTransfersOf = (tx: Db, ticketIds: readonly string[]) =>
  tx.execute(sql`
    update ticket_transfers set status = 'cancelled', ended_at = now()
    where status = 'pending'
      and ticket_id in (select t.id from tickets t where t.id = any(${sql.param([...ticketIds])}::uuid[]) or t.origin_ticket_id = any(${sql.param([...ticketIds])}::uuid[]))`)

/** The seller's customer whose verified email this is (case aside), if any: a transfer to that email lands in the account. */
export const verifiedCustomerByEmail = async (tx: Db, sellerId: string, email: string) =>
  (
    await tx
      .select({ id: customers.id, email: customers.email })
      .from(customers)
      .where(and(eq(customers.sellerId, sellerId), sql`lower(${customers.email}) = lower(${email})`, sql`${customers.emailVerifiedAt} is not null`))
      .limit(1)
  )[0]
