import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { orders } from '../orders/orders.table.js'
import type { RefundRow } from './payment-views.js'
import { refunds } from './payments.table.js'

/** A refund to write: `done` when it comes with its provider's reference. */
export type NewRefund = { sellerId: string; orderId: string; amount: number; tickets: string[]; reason: string; reference: string | null }

/** Writes a refund, `done` at once (at the database's now) when it has its reference, else `pending`. */
export const insertRefund = async (tx: Db, refund: NewRefund): Promise<RefundRow> =>
  (
    await tx
      .insert(refunds)
      .values({
        ...refund,
        status: refund.reference === null ? 'pending' : 'done',
        doneAt: refund.reference === null ? null : sql`now()`,
      })
      .returning()
  )[0]!

/** A refund of this seller (of any seller: null), unlocked: to find the order to lock first. */
export const findRefund = async (db: Db, refundId: string, sellerId: string | null): Promise<RefundRow | undefined> =>
  (
    await db
      .select()
      .from(refunds)
      .where(and(eq(refunds.id, refundId), sellerId === null ? undefined : eq(refunds.sellerId, sellerId)))
  )[0]

/** A refund as it is now, locked: read it after its order's lock, the order every refund change takes. */
export const lockRefund = async (tx: Db, refundId: string): Promise<RefundRow> =>
  (await tx.select().from(refunds).where(eq(refunds.id, refundId)).for('update'))[0]!

/**
 * What an order's pending refunds add up to. Every refund is created and confirmed under its
 * order's lock: read under it, the sum stays true until the transaction ends.
 */
export const pendingRefundsTotal = async (tx: Db, orderId: string): Promise<number> =>
  Number(
    (
      await tx
        .select({ total: sql<string>`coalesce(sum(${refunds.amount}), 0)` })
        .from(refunds)
        .where(and(eq(refunds.orderId, orderId), eq(refunds.status, 'pending')))
    )[0]!.total,
  )

/** A pending refund executed at the provider under `reference`: `done` now. */
export const markRefundDone = async (tx: Db, refundId: string, reference: string): Promise<RefundRow> =>
  (await tx.update(refunds).set({ status: 'done', reference, doneAt: sql`now()` }).where(eq(refunds.id, refundId)).returning())[0]!

/** A done refund counts in its order's `refunded_total`; answers the order as it is now. */
export const addRefunded = async (tx: Db, orderId: string, amount: number) =>
  (
    await tx
      .update(orders)
      .set({ refundedTotal: sql`${orders.refundedTotal} + ${amount}`, updatedAt: sql`now()` })
      .where(eq(orders.id, orderId))
      .returning()
  )[0]!
