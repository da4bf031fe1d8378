import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { inventories } from '../catalog/inventories.table.js'
import { orders, tickets } from './orders.table.js'

/** The instants (ms since the epoch) a buyer's withdrawal is judged by, all on the database's clock. */
export type WithdrawalClock = {
  now: number
  /** The purchase: the order's `created_at`. */
  purchasedAt: number
  /** `cutoff hours` before its earliest valid ticket's date at 00:00 in the seller's time zone; null: no valid ticket. */
  cutoff: number | null
}

/** An instant as whole milliseconds, as JavaScript's Date keeps it (extract is exact: numeric). */
const epochMs = (instant: ReturnType<typeof sql>) => sql<number>`floor(extract(epoch from ${instant}) * 1000)::float8`.mapWith(Number)

/**
 * An order's withdrawal clock. The earliest ticket is read from its inventory as it is now (a
 * show moved earlier closes the window earlier), among the order's tickets still valid.
 */
export async function withdrawalClock(tx: Db, orderId: string, seller: { timezone: string; cutoffHours: number }): Promise<WithdrawalClock> {
  const earliest = tx
    .select({ date: sql`min(${inventories.date})`.as('date') })
    .from(tickets)
    .innerJoin(inventories, eq(inventories.id, tickets.inventoryId))
    .where(and(eq(tickets.orderId, orderId), isNull(tickets.voidedAt)))
    .as('earliest')
  const [row] = await tx
    .select({
      now: epochMs(sql`now()`),
      purchasedAt: epochMs(sql`${orders.createdAt}`),
      cutoff: epochMs(sql`(${earliest.date}::timestamp at time zone ${seller.timezone}) - make_interval(hours => ${seller.cutoffHours}::int)`),
    })
    .from(orders)
    .leftJoin(earliest, sql`true`)
    .where(eq(orders.id, orderId))
  return { now: row!.now, purchasedAt: row!.purchasedAt, cutoff: row!.cutoff ?? null }
}
