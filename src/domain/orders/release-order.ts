import { and, inArray, isNull, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { lockCoupons } from '../coupons/coupons.repo.js'
import { coupons } from '../coupons/coupons.table.js'
import type { TicketsFreed } from '../inventory/freeing-tickets.js'
import { couponRedemptions, tickets } from './orders.table.js'

/** A ticket an order gave back. */
export type ReleasedTicket = { id: string; orderId: string; orderItemId: string; inventoryId: string; identifier: string }

/**
 * Voids the valid tickets that match `where` (those voided already are left as they are), their
 * change marked for the door's feed; answers them. Putting them back on sale is the caller's.
 */
export const voidValidTickets = (tx: Db, where: SQL | undefined): Promise<ReleasedTicket[]> =>
  tx
    .update(tickets)
    .set({ voidedAt: sql`now()`, changedXid: sql`pg_current_xact_id()` })
    .where(and(where, isNull(tickets.voidedAt)))
    .returning({ id: tickets.id, orderId: tickets.orderId, orderItemId: tickets.orderItemId, inventoryId: tickets.inventoryId, identifier: tickets.identifier })

/**
 * What ending orders (a cancellation, a withdrawal, an expiry) does to what they took: their
 * valid tickets are voided and go back on sale (sold decreases under the inventory locks, taken
 * once per seller, sellers in id order, so a batch of orders locks as any other change does), and
 * their coupons' uses are given back. Call it with the orders locked; answers the tickets released
 * and the coupons whose uses came back.
 */
export async function releaseOrders(
  tx: Db,
  stock: TicketsFreed,
  orders: readonly { id: string; sellerId: string }[],
): Promise<{ tickets: ReleasedTicket[]; couponIds: string[] }> {
  if (orders.length === 0) return { tickets: [], couponIds: [] }
  const ids = orders.map((order) => order.id)
  // Tickets voided one by one are back on sale already: only the valid ones return now.
  const released = await voidValidTickets(tx, inArray(tickets.orderId, ids))
  const sellerOf = new Map(orders.map((order) => [order.id, order.sellerId]))
  for (const sellerId of [...new Set(orders.map((order) => order.sellerId))].sort()) {
    const quantities = countByInventory(released.filter((ticket) => sellerOf.get(ticket.orderId) === sellerId))
    if (quantities.size > 0) await stock.release(sellerId, quantities)
  }
  return { tickets: released, couponIds: await giveBackCoupons(tx, ids) }
}

/** The coupon uses these orders took are given back (the coupons locked in id order, after the inventories), their redemptions deleted. */
async function giveBackCoupons(tx: Db, orderIds: readonly string[]): Promise<string[]> {
  const redeemed = await tx
    .select()
    .from(couponRedemptions)
    .where(inArray(couponRedemptions.orderId, [...orderIds]))
  if (redeemed.length === 0) return []
  const uses = countBy(redeemed, (redemption) => redemption.couponId)
  await lockCoupons(tx, [...uses.keys()])
  for (const [id, n] of uses) {
    await tx
      .update(coupons)
      .set({ uses: sql`greatest(${coupons.uses} - ${n}, 0)` })
      .where(sql`${coupons.id} = ${id}`)
  }
  await tx.delete(couponRedemptions).where(inArray(couponRedemptions.orderId, [...orderIds]))
  return [...uses.keys()].sort()
}

/** How many of `rows` have each key. */
function countBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const row of rows) counts.set(key(row), (counts.get(key(row)) ?? 0) + 1)
  return counts
}

/** How many of these tickets each inventory gave back. */
export const countByInventory = (released: readonly ReleasedTicket[]) => countBy(released, (ticket) => ticket.inventoryId)

/** How many of these tickets each order item gave back. */
export const countByItem = (released: readonly ReleasedTicket[]) => countBy(released, (ticket) => ticket.orderItemId)
