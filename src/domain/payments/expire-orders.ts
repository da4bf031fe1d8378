import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db } from '../../platform/db/database.js'
import { enqueueEmails } from '../../platform/mail/outbox.repo.js'
import type { OutboxChannel, OutboxItem } from '../../platform/outbox/worker.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import { orderEmailContexts, orderExpiredEmail } from '../orders/order-emails.js'
import { decide } from '../orders/order-states.js'
import { auditInsertsWhere } from '../audit/record-audit.js'
import { loadOrderViews, type OrderView } from '../orders/order-view.js'
import { orders } from '../orders/orders.table.js'
import { releaseOrders } from '../orders/release-order.js'
import { orderEvent, recordWebhookEvents } from '../webhooks/webhook-events.js'

/**
 * Expires up to `limit` orders whose payment is due (docs/payments.md), oldest deadline first, in one
 * transaction: each is locked with SKIP LOCKED, so that every process may sweep at once and each
 * order expires once (one that a payment holds is left to it: paid, it is no longer pending; not
 * paid, the next sweep takes it). Their tickets go back on sale (the waiting lists first: a
 * release is heard as any void is), their coupons' uses come back, and `order.expired` and the
 * buyer's email are queued, in the same transaction: a process that dies in the middle expires
 * nothing, and the next sweep does it all. Answers the orders expired.
 */
export async function expireDueOrders(db: Db, codes: TicketCodes, limit: number): Promise<string[]> {
  // Most sweeps find nothing due: they open no transaction (one read of the deadlines' index).
  if ((await db.select({ id: orders.id }).from(orders).where(isDue).limit(1)).length === 0) return []
  return freeingTickets(db, async (tx, stock) => {
    const due = await tx.select().from(orders).where(isDue).orderBy(asc(orders.paymentDueAt)).limit(limit).for('update', { skipLocked: true })
    const expiring = due.filter((order) => 'to' in decide(order.status, 'expire'))
    if (expiring.length === 0) return []
    await releaseOrders(tx, stock, expiring)
    const expired = await tx
      .update(orders)
      .set({ status: 'expired', expiredAt: sql`now()`, updatedAt: sql`now()` })
      .where(
        inArray(
          orders.id,
          expiring.map((order) => order.id),
        ),
      )
      .returning()
    await auditInsertsWhere(
      tx,
      expired.map((order) => ({
        actor: { type: 'system' as const },
        entry: { action: 'order.expired', target: { type: 'order', id: order.id }, sellerId: order.sellerId, data: { payment_due_at: order.paymentDueAt } },
      })),
      sql`true`,
    ).execute()
    const views = await loadOrderViews(tx, codes, expired)
    // One statement per seller for its orders' events: a batch of 200 is not 200 round trips (bench/explain.ts).
    const bySeller = new Map<string, OrderView[]>()
    for (const view of views) {
      const ofSeller = bySeller.get(view.seller_id)
      if (ofSeller) ofSeller.push(view)
      else bySeller.set(view.seller_id, [view])
    }
    for (const [sellerId, ofSeller] of bySeller) {
      await recordWebhookEvents(
        tx,
        sellerId,
        ofSeller.map((view) => orderEvent('order.expired', view)),
      )
    }
    const contexts = await orderEmailContexts(
      tx,
      views.map((view) => view.id),
    )
    await enqueueEmails(
      tx,
      views.flatMap((view) => {
        const context = contexts.get(view.id)
        return context ? [orderExpiredEmail(context, view)] : []
      }),
    )
    return views.map((view) => view.id)
  })
}

/** A pending order past its deadline (orders_payment_due_idx). */
const isDue = and(eq(orders.status, 'pending'), lte(orders.paymentDueAt, sql`now()`))

/** Orders expired per transaction: the inventories' locks are never held long, however many orders are due at once. */
export const EXPIRY_BATCH = 200

/**
 * The expiry sweep as an outbox channel: the worker runs it in every process at its poll
 * interval (well within the 60 s docs/payments.md allows), and again at once after a full batch. A
 * "claim" expires the due orders; there is nothing left to send.
 */
export function orderExpiryChannel(options: { db: Db; codes: TicketCodes; logger: Logger }): OutboxChannel<OutboxItem, null> {
  return {
    kind: 'order_expiry',
    batchSize: EXPIRY_BATCH,
    concurrency: 1,
    async claim(limit) {
      const expired = await expireDueOrders(options.db, options.codes, limit)
      if (expired.length > 0) options.logger.info({ orders: expired.length }, 'orders expired unpaid')
      return expired.map((id) => ({ id, attempts: 1 }))
    },
    send: async () => ({ delivered: true, detail: null }),
    retryInMs: () => null,
    settle: async () => {},
  }
}
