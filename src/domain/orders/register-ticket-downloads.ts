import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { AppError } from '../../platform/errors.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { recordWebhookEvents, ticketEvents } from '../webhooks/webhook-events.js'
import { loadOrderViews } from './order-view.js'
import { lockOrderWhere } from './orders.repo.js'
import { orders, ticketDownloads, tickets } from './orders.table.js'

export type RegisterTicketDownloadsOptions = {
  /** Signs the tickets' codes of the order answered (and of its webhook events). */
  codes: TicketCodes
  sellerId: string
  affiliate: AffiliateContext | null
  orderId: string
  identifiers: readonly string[]
  source?: string | undefined
  /** The signed-in buyer; absent for a link opened from an email. */
  userId?: string | undefined
  traceId?: string | undefined
}

export type TicketDownloadsView = { registered: number; first_access: string[]; unknown: string[]; voided: string[] }

/**
 * Records that tickets of an order were retrieved (docs/selling.md). `registered` counts the given
 * identifiers that belong to the order, `first_access` those retrieved for the first time by
 * this call (each ticket is first accessed exactly once, even under concurrent calls), `unknown`
 * those not in the order, `voided` those of the order that are voided (never registered: a voided
 * ticket is not first accessed by anyone). Another seller's order, or a `user_id` other than its customer: 404.
 * Every call is kept with its source, user and time. Each first access writes a
 * `ticket.first_access` webhook event.
 */
export const registerTicketDownloads = (db: Db, options: RegisterTicketDownloadsOptions) =>
  db.transaction(async (tx): Promise<TicketDownloadsView> => {
    // Locked as a void or a cancellation locks it: none of them can change the tickets between
    // this call's reading and its writing, and the order's events go out in the order they commit.
    const order = await lockOrderWhere(
      tx,
      and(eq(orders.id, options.orderId), eq(orders.sellerId, options.sellerId), options.affiliate ? eq(orders.affiliateId, options.affiliate.id) : undefined),
    )
    if (!order || (options.userId !== undefined && options.userId.toLowerCase() !== order.customerId)) throw new AppError('not_found')

    const identifiers = [...new Set(options.identifiers)]
    const ofOrder = await tx
      .select({ identifier: tickets.identifier, voidedAt: tickets.voidedAt })
      .from(tickets)
      .where(and(eq(tickets.orderId, order.id), inArray(tickets.identifier, identifiers)))
    const known = new Set(ofOrder.filter((row) => !row.voidedAt).map((row) => row.identifier))
    const voided = new Set(ofOrder.filter((row) => row.voidedAt).map((row) => row.identifier))
    const firstNow = new Set(
      known.size === 0
        ? []
        : (
            await tx
              .update(tickets)
              .set({ firstAccessAt: sql`now()` })
              .where(and(eq(tickets.orderId, order.id), inArray(tickets.identifier, [...known]), isNull(tickets.firstAccessAt), isNull(tickets.voidedAt)))
              .returning({ identifier: tickets.identifier })
          ).map((row) => row.identifier),
    )
    if (firstNow.size > 0) {
      const [view] = await loadOrderViews(tx, options.codes, [order])
      await recordWebhookEvents(tx, order.sellerId, ticketEvents('ticket.first_access', view!, [...firstNow]))
    }
    const result = {
      registered: known.size,
      first_access: identifiers.filter((id) => firstNow.has(id)),
      unknown: identifiers.filter((id) => !known.has(id) && !voided.has(id)),
      voided: identifiers.filter((id) => voided.has(id)),
    }
    await tx.insert(ticketDownloads).values({
      sellerId: options.sellerId,
      orderId: order.id,
      userId: options.userId ?? null,
      source: options.source ?? null,
      identifiers,
      firstAccess: result.first_access,
      unknown: result.unknown,
      voided: result.voided,
      traceId: options.traceId ?? null,
    })
    return result
  })
