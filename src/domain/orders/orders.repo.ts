import { asc, count, desc, eq, inArray, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { executeStatement } from '../../platform/db/fixed-statement.js'
import type { Executable } from '../../platform/db/transaction-ending-with.js'
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

const jsonOrNull = (value: unknown) => (value == null ? null : JSON.stringify(value))

/**
 * The statement writing a confirmed order with its items and their tickets (ids made by the
 * caller), to send with others: one text whatever the number of items and tickets (the rows
 * travel as arrays), prepared once per connection and never built (`FixedStatement`): it is on
 * the checkout's hot path. `writtenOrderRows` are the rows it writes.
 */
export function insertOrderQuery(db: Db, order: NewOrder, items: NewOrderItem[], issued: NewTicket[]): Executable<unknown> {
  const params = [
    order.id,
    order.sellerId,
    order.basketId,
    order.affiliateId ?? null,
    order.affiliateCode ?? null,
    order.customerId,
    order.couponId ?? null,
    jsonOrNull(order.coupon),
    order.subtotal,
    order.discount,
    order.interest,
    order.total,
    order.paymentMethod,
    order.installments,
    order.installmentAmount,
    order.paymentReference ?? null,
    items.map((i) => i.id),
    items.map((i) => i.inventoryId),
    items.map((i) => i.eventId),
    items.map((i) => i.date),
    items.map((i) => i.name),
    items.map((i) => i.variant ?? null),
    items.map((i) => i.quantity),
    items.map((i) => i.unitPrice),
    items.map((i) => i.discount),
    items.map((i) => i.total),
    items.map((i) => i.couponId ?? null),
    items.map((i) => jsonOrNull(i.coupon)),
    items.map((i) => i.position),
    issued.map((t) => t.id),
    issued.map((t) => t.orderItemId),
    issued.map((t) => t.inventoryId),
    issued.map((t) => t.identifier),
  ]
  return { execute: () => executeStatement(db, { sql: INSERT_ORDER, params }) }
}

const INSERT_ORDER = `
  with placed as (
    insert into orders (id, seller_id, basket_id, affiliate_id, affiliate_code, customer_id, coupon_id, coupon, subtotal, discount,
                        interest, total, payment_method, installments, installment_amount, payment_reference)
    values ($1::uuid, $2::uuid, $3::uuid, $4::uuid, $5::text, $6::uuid, $7::uuid, $8::jsonb, $9::bigint, $10::bigint,
            $11::bigint, $12::bigint, $13::text, $14::int, $15::bigint, $16::text)
  ), items as (
    insert into order_items (id, order_id, inventory_id, event_id, date, name, variant, quantity, unit_price, discount, total, coupon_id, coupon, position)
    select i.id, $1::uuid, i.inventory_id, i.event_id, i.date, i.name, i.variant, i.quantity, i.unit_price, i.discount, i.total, i.coupon_id, i.coupon::jsonb, i.position
      from unnest($17::uuid[], $18::uuid[], $19::uuid[], $20::date[], $21::text[], $22::text[], $23::int[], $24::bigint[], $25::bigint[], $26::bigint[],
                  $27::uuid[], $28::text[], $29::int[])
        as i(id, inventory_id, event_id, date, name, variant, quantity, unit_price, discount, total, coupon_id, coupon, position)
  )
  insert into tickets (id, order_id, order_item_id, inventory_id, identifier)
  select t.id, $1::uuid, t.order_item_id, t.inventory_id, t.identifier
    from unnest($30::uuid[], $31::uuid[], $32::uuid[], $33::text[]) as t(id, order_item_id, inventory_id, identifier)`

/** The rows `insertOrderQuery` writes, in a transaction started at `now` (the database's `now()`, the rows' creation time). */
export function writtenOrderRows(order: NewOrder, items: NewOrderItem[], issued: NewTicket[], now: Date) {
  const orderRow: OrderRow = {
    ...order,
    affiliateId: order.affiliateId ?? null,
    affiliateCode: order.affiliateCode ?? null,
    couponId: order.couponId ?? null,
    coupon: order.coupon ?? null,
    paymentReference: order.paymentReference ?? null,
    status: 'confirmed',
    createdAt: now,
    updatedAt: now,
    cancelledAt: null,
  }
  const itemRows: OrderItemRow[] = items.map((i) => ({
    ...i,
    orderId: order.id,
    variant: i.variant ?? null,
    couponId: i.couponId ?? null,
    coupon: i.coupon ?? null,
  }))
  const ticketRows: TicketRow[] = issued.map((t) => ({ ...t, orderId: order.id, firstAccessAt: null, voidedAt: null, createdAt: now }))
  return { order: orderRow, items: itemRows, tickets: ticketRows }
}
