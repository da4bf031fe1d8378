import { asc, count, desc, eq, inArray, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { orderItems, orders, tickets } from './orders.table.js'

export type OrderRow = typeof orders.$inferSelect
export type OrderItemRow = typeof orderItems.$inferSelect
/** A ticket as orders show it (the feed's change marker is the scanners' business). */
export type TicketRow = Omit<typeof tickets.$inferSelect, 'changedXid'>

export const findOrder = async (db: Db, where: SQL | undefined) => (await db.select().from(orders).where(where))[0]

/** Locks an order for a status change. */
export const lockOrder = async (db: Db, orderId: string) => (await db.select().from(orders).where(eq(orders.id, orderId)).for('update'))[0]

/** Locks the order that matches `where` (an id and its owner), as `lockOrder` does. */
export const lockOrderWhere = async (db: Db, where: SQL | undefined) => (await db.select().from(orders).where(where).for('update'))[0]

/** A page of orders, newest first, and the total. */
export async function pageOrders(db: Db, where: SQL | undefined, limit: number, offset: number) {
  const [rows, [total]] = await Promise.all([
    db.select().from(orders).where(where).orderBy(desc(orders.createdAt), desc(orders.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(orders).where(where),
  ])
  return { rows, total: Number(total?.n ?? 0) }
}

/** The items and tickets of these orders, in order. */
export async function orderDetails(db: Db, orderIds: readonly string[]) {
  if (orderIds.length === 0) return { items: [] as OrderItemRow[], tickets: [] as TicketRow[] }
  const items = await db
    .select()
    .from(orderItems)
    .where(inArray(orderItems.orderId, [...orderIds]))
    .orderBy(asc(orderItems.position))
  const ticketRows = await db
    .select()
    .from(tickets)
    .where(inArray(tickets.orderId, [...orderIds]))
    .orderBy(asc(tickets.identifier))
  return { items, tickets: ticketRows }
}

/** The order a checked-out basket became (one per basket), with its items in order. */
export async function findOrderOfBasket(db: Db, basketId: string): Promise<{ order: OrderRow; items: OrderItemRow[] } | undefined> {
  const [order] = await db.select().from(orders).where(eq(orders.basketId, basketId))
  if (!order) return undefined
  const items = await db.select().from(orderItems).where(eq(orderItems.orderId, order.id)).orderBy(asc(orderItems.position))
  return { order, items }
}

/** The id of the order a checked-out basket became. */
export const findOrderIdOfBasket = async (db: Db, basketId: string): Promise<string | null> =>
  (await db.select({ id: orders.id }).from(orders).where(eq(orders.basketId, basketId)))[0]?.id ?? null

/** An order to write: every column but those the database sets (status, timestamps). */
export type NewOrder = Omit<typeof orders.$inferInsert, 'status' | 'createdAt' | 'updatedAt' | 'cancelledAt'> & { id: string }
export type NewOrderItem = Omit<typeof orderItems.$inferInsert, 'id' | 'orderId'> & { id: string }
export type NewTicket = { id: string; orderItemId: string; inventoryId: string; identifier: string }

/**
 * The statements writing a confirmed order with its items and their tickets (ids made by the
 * caller), to send together (`inOrder`): built from the tables, so type-checked, and each
 * answers the rows the database wrote (RETURNING), defaults and timestamps included.
 */
export const insertOrderQueries = (db: Db, order: NewOrder, items: NewOrderItem[], issued: NewTicket[]) =>
  [
    db.insert(orders).values(order).returning(),
    db
      .insert(orderItems)
      .values(items.map((item) => ({ ...item, orderId: order.id })))
      .returning(),
    db
      .insert(tickets)
      .values(issued.map((ticket) => ({ ...ticket, orderId: order.id })))
      .returning(),
  ] as const
