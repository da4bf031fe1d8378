import { and, asc, count, desc, eq, getTableColumns, inArray, isNull, sql, type SQL } from 'drizzle-orm'
import { preparedOn } from '../../platform/db/prepared.js'
import type { Db } from '../../platform/db/database.js'
import { events, type EventVenue } from '../catalog/events.table.js'
import { inventories } from '../catalog/inventories.table.js'
import { couponRedemptions, orderItems, orders, tickets, ticketTransfers } from './orders.table.js'
import { payments, refunds } from '../payments/payments.table.js'

export type OrderRow = typeof orders.$inferSelect
export type OrderItemRow = typeof orderItems.$inferSelect
/** When and where an item's tickets are for, as its inventory and event say now (not copied at checkout: a show moved shows moved). */
export type ItemShow = { time: string | null; doorsTime: string | null; venue: EventVenue | null }
export type ShownOrderItemRow = OrderItemRow & ItemShow
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

/** The order items that match `where`, with their show's time and venue as their inventory and event say now, in their order's line order. */
export const shownOrderItems = (db: Db, where: SQL | undefined): Promise<ShownOrderItemRow[]> =>
  db
    .select({ ...getTableColumns(orderItems), time: inventories.time, doorsTime: inventories.doorsTime, venue: events.venue })
    .from(orderItems)
    .innerJoin(inventories, eq(inventories.id, orderItems.inventoryId))
    .innerJoin(events, eq(events.id, inventories.eventId))
    .where(where)
    .orderBy(asc(orderItems.position))

/** The items (with their show's time and venue as they are now), tickets, payments and refunds of these orders, in order. */
export async function orderDetails(db: Db, orderIds: readonly string[]) {
  if (orderIds.length === 0)
    return {
      items: [] as ShownOrderItemRow[],
      tickets: [] as TicketRow[],
      payments: [],
      refunds: [],
      recipients: new Map<string, { name: string; email: string }>(),
    }
  const items = await shownOrderItems(db, inArray(orderItems.orderId, [...orderIds]))
  const ticketRows = await db
    .select()
    .from(tickets)
    .where(inArray(tickets.orderId, [...orderIds]))
    .orderBy(asc(tickets.identifier))
  const paymentRows = await db
    .select()
    .from(payments)
    .where(inArray(payments.orderId, [...orderIds]))
    .orderBy(asc(payments.createdAt), asc(payments.id))
  const refundRows = await db
    .select()
    .from(refunds)
    .where(inArray(refunds.orderId, [...orderIds]))
    .orderBy(asc(refunds.createdAt), asc(refunds.id))
  // Who accepted the tickets given away: read only when some were.
  const given = ticketRows.filter((t) => t.transferredAt !== null).map((t) => t.id)
  const accepted =
    given.length === 0
      ? []
      : await db
          .select({ ticketId: ticketTransfers.ticketId, name: ticketTransfers.recipientName, email: ticketTransfers.recipientEmail })
          .from(ticketTransfers)
          .where(and(inArray(ticketTransfers.ticketId, given), eq(ticketTransfers.status, 'accepted')))
  const recipients = new Map(accepted.map((row) => [row.ticketId, { name: row.name, email: row.email }]))
  return { items, tickets: ticketRows, payments: paymentRows, refunds: refundRows, recipients }
}

/**
 * The statement reading when and where the tickets of these inventories are for, as their
 * inventories and events say now, by inventory id, to send with others (`inOrder`): a checkout's
 * answer shows them as every later read of the order does.
 */
export const itemShowsQuery = (db: Db, inventoryIds: readonly string[]) => {
  const statement = preparedOn(db, ITEM_SHOWS, prepareItemShows)
  return {
    execute: async () => new Map((await statement.execute({ ids: [...new Set(inventoryIds)] })).map(({ id, ...show }): [string, ItemShow] => [id, show])),
  }
}

const ITEM_SHOWS = Symbol('item shows')
const prepareItemShows = (db: Db) =>
  db
    .select({ id: inventories.id, time: inventories.time, doorsTime: inventories.doorsTime, venue: events.venue })
    .from(inventories)
    .innerJoin(events, eq(events.id, inventories.eventId))
    .where(sql`${inventories.id} = any(${sql.placeholder('ids')}::uuid[])`)
    .prepare('item_shows')

/** The order a checked-out basket became (one per basket), with its items in order. */
export async function findOrderOfBasket(db: Db, basketId: string): Promise<{ order: OrderRow; items: OrderItemRow[] } | undefined> {
  const [order] = await db.select().from(orders).where(eq(orders.basketId, basketId))
  if (!order) return undefined
  return { order, items: await orderItemsOf(db, order.id) }
}

/** An order's items, in order. */
export const orderItemsOf = (db: Db, orderId: string): Promise<OrderItemRow[]> =>
  db.select().from(orderItems).where(eq(orderItems.orderId, orderId)).orderBy(asc(orderItems.position))

/** The id of the order a checked-out basket became. */
export const findOrderIdOfBasket = async (db: Db, basketId: string): Promise<string | null> =>
  (await db.select({ id: orders.id }).from(orders).where(eq(orders.basketId, basketId)))[0]?.id ?? null

/**
 * An order to write: every column but those the database sets (timestamps), with its payment
 * deadline as minutes from the database's now (null: paid at checkout).
 */
export type NewOrder = Omit<
  typeof orders.$inferInsert,
  'createdAt' | 'updatedAt' | 'cancelledAt' | 'expiredAt' | 'paymentDueAt' | 'refundedTotal' | 'status' | 'paidTotal' | 'buyerEmail' | 'buyerName'
> & {
  id: string
  status: 'pending' | 'confirmed'
  paymentDueMinutes: number | null
  paidTotal: number
  /** Null: the customer's (`customerId`), as the account reads at checkout. */
  buyerEmail: string | null
  buyerName: string | null
}
export type NewOrderItem = Omit<typeof orderItems.$inferInsert, 'id' | 'orderId'> & { id: string }
export type NewTicket = { id: string; orderItemId: string; inventoryId: string; identifier: string; seatId: string | null }

/**
 * The statements writing an order (confirmed, or pending) with its items and their tickets (ids made by the
 * caller), to send together (`inOrder`): each answers the rows the database wrote (RETURNING),
 * defaults and timestamps included. Built from the tables once per connection (`preparedOn`):
 * every checkout writes them, and building an insert of many values costs more of this process
 * than the database spends running it. The items and tickets, however many, go as one array per
 * column (`unnest`), so one text serves every order.
 */
export const insertOrderQueries = (db: Db, order: NewOrder, items: NewOrderItem[], issued: NewTicket[]) => {
  const statements = preparedOn(db, INSERT_ORDER, prepareInsertOrder)
  return [
    { execute: () => statements.order.execute(order) },
    {
      execute: () =>
        statements.items.execute({
          orderId: order.id,
          ids: items.map((item) => item.id),
          inventoryIds: items.map((item) => item.inventoryId),
          eventIds: items.map((item) => item.eventId),
          dates: items.map((item) => item.date),
          names: items.map((item) => item.name),
          variants: items.map((item) => item.variant ?? null),
          quantities: items.map((item) => item.quantity),
          unitPrices: items.map((item) => item.unitPrice),
          discounts: items.map((item) => item.discount),
          totals: items.map((item) => item.total),
          couponIds: items.map((item) => item.couponId ?? null),
          coupons: items.map((item) => (item.coupon ? JSON.stringify(item.coupon) : null)),
          positions: items.map((item) => item.position),
          seats: items.map((item) => (item.seats ? JSON.stringify(item.seats) : null)),
        }),
    },
    {
      execute: () =>
        statements.tickets.execute({
          orderId: order.id,
          sellerId: order.sellerId,
          ids: issued.map((ticket) => ticket.id),
          orderItemIds: issued.map((ticket) => ticket.orderItemId),
          inventoryIds: issued.map((ticket) => ticket.inventoryId),
          identifiers: issued.map((ticket) => ticket.identifier),
          seatIds: issued.map((ticket) => ticket.seatId),
        }),
    },
  ] as const
}

const INSERT_ORDER = Symbol('insert order')
const placeholder = sql.placeholder
const prepareInsertOrder = (db: Db) => ({
  order: db
    .insert(orders)
    .values({
      id: placeholder('id'),
      sellerId: placeholder('sellerId'),
      basketId: placeholder('basketId'),
      affiliateId: placeholder('affiliateId'),
      affiliateCode: placeholder('affiliateCode'),
      customerId: placeholder('customerId'),
      // A customer's order copies the account's email and name as they are at checkout.
      buyerEmail: sql`coalesce(${placeholder('buyerEmail')}::text, (select c.email from customers c where c.id = ${placeholder('customerId')}))`,
      buyerName: sql`coalesce(${placeholder('buyerName')}::text, (select trim(c.first_name || ' ' || c.last_name) from customers c where c.id = ${placeholder('customerId')}))`,
      orderTokenHash: placeholder('orderTokenHash'),
      couponId: placeholder('couponId'),
      coupon: placeholder('coupon'),
      subtotal: placeholder('subtotal'),
      discount: placeholder('discount'),
      interest: placeholder('interest'),
      total: placeholder('total'),
      paymentMethod: placeholder('paymentMethod'),
      installments: placeholder('installments'),
      installmentAmount: placeholder('installmentAmount'),
      paymentReference: placeholder('paymentReference'),
      status: placeholder('status'),
      paymentDueAt: sql`now() + make_interval(mins => ${placeholder('paymentDueMinutes')}::int)`,
      paidTotal: placeholder('paidTotal'),
    })
    .returning()
    .prepare('insert_order'),
  // Every column of the table, in its order (an insert from a select names them all).
  items: db
    .insert(orderItems)
    .select(
      sql`select u.id, ${placeholder('orderId')}::uuid, u.inventory_id, u.event_id, u.date, u.name, u.variant, u.quantity, u.unit_price,
                 u.discount, u.total, u.coupon_id, u.coupon::jsonb, u.seats::jsonb, u.position
            from unnest(${placeholder('ids')}::uuid[], ${placeholder('inventoryIds')}::uuid[], ${placeholder('eventIds')}::uuid[],
                        ${placeholder('dates')}::date[], ${placeholder('names')}::text[], ${placeholder('variants')}::text[],
                        ${placeholder('quantities')}::int[], ${placeholder('unitPrices')}::int8[], ${placeholder('discounts')}::int8[],
                        ${placeholder('totals')}::int8[], ${placeholder('couponIds')}::uuid[], ${placeholder('coupons')}::text[],
                        ${placeholder('positions')}::int[], ${placeholder('seats')}::text[])
              as u(id, inventory_id, event_id, date, name, variant, quantity, unit_price, discount, total, coupon_id, coupon, position, seats)`,
    )
    .returning()
    .prepare('insert_order_items'),
  tickets: db
    .insert(tickets)
    .select(
      // Signed by the seller's key active as the row is written: a rotation committed meanwhile is
      // seen, and a retire waits for this order (its foreign key share-locks the key row).
      sql`select u.id, ${placeholder('orderId')}::uuid, u.order_item_id, u.inventory_id, u.identifier, null, null, now(), pg_current_xact_id(),
                 (select k.id from ticket_signing_keys k where k.seller_id = ${placeholder('sellerId')}::uuid and k.active), u.seat_id,
                 0, null, null, 0, null, null
            from unnest(${placeholder('ids')}::uuid[], ${placeholder('orderItemIds')}::uuid[], ${placeholder('inventoryIds')}::uuid[],
                        ${placeholder('identifiers')}::text[], ${placeholder('seatIds')}::text[])
              as u(id, order_item_id, inventory_id, identifier, seat_id)`,
    )
    .returning()
    .prepare('insert_tickets'),
})

/** What each ticket of the order prints besides its code: the event and its venue, its inventory's current name, date and times, the holder. */
export const ticketPrintRows = (db: Db, orderId: string) =>
  db
    .select({
      identifier: tickets.identifier,
      event: events.title,
      inventory: inventories.name,
      date: inventories.date,
      time: inventories.time,
      doorsTime: inventories.doorsTime,
      venue: events.venue,
      holder: sql<string | null>`nullif(trim(coalesce(${tickets.holderName}, ${orders.buyerName})), '')`,
    })
    .from(tickets)
    .innerJoin(orders, eq(orders.id, tickets.orderId))
    .innerJoin(inventories, eq(inventories.id, tickets.inventoryId))
    .innerJoin(events, eq(events.id, inventories.eventId))
    .where(eq(tickets.orderId, orderId))

/** A payment confirms the order: `confirmed`, the amount added to what it was paid, its reference kept when it had none. Answers the order. */
export const confirmPaidOrder = async (db: Db, orderId: string, amount: number, reference: string) =>
  (
    await db
      .update(orders)
      .set({
        status: 'confirmed',
        paidTotal: sql`${orders.paidTotal} + ${amount}`,
        paymentReference: sql`coalesce(${orders.paymentReference}, ${reference})`,
        updatedAt: sql`now()`,
      })
      .where(eq(orders.id, orderId))
      .returning()
  )[0]!

/**
 * Marks every ticket of the order as changed for the door's feed (paid: valid now); with `revive`,
 * its voided tickets are valid again too (an expired order reactivated: their seats and stock were taken again).
 */
export const markOrderTicketsChanged = (db: Db, orderId: string, options: { revive?: boolean } = {}) =>
  db
    .update(tickets)
    .set({ changedXid: sql`pg_current_xact_id()`, ...(options.revive ? { voidedAt: null } : {}) })
    .where(eq(tickets.orderId, orderId))

/** Whether the order of this seller is the one `tokenHash` opens: one indexed read, whatever the token (docs/selling.md). */
export const orderTokenOpens = async (db: Db, sellerId: string, orderId: string, tokenHash: string) =>
  (
    await db
      .select({ id: orders.id })
      .from(orders)
      .where(and(eq(orders.id, orderId), eq(orders.sellerId, sellerId), eq(orders.orderTokenHash, tokenHash)))
  ).length > 0

/** Replaces the order's token (the old one opens nothing from now on); answers the order, or undefined when there is none with this id. */
export const replaceOrderTokenHash = async (db: Db, orderId: string, tokenHash: string) =>
  (
    await db
      .update(orders)
      .set({ orderTokenHash: tokenHash, updatedAt: sql`now()` })
      .where(eq(orders.id, orderId))
      .returning({ id: orders.id, sellerId: orders.sellerId })
  )[0]

/**
 * The seller's guest orders placed with this email (whatever its case) join the customer's account,
 * with their coupon redemptions (which then count as the customer's). Only for an account that has
 * just proved it controls the inbox: never on registration alone. Answers the orders joined.
 */
export async function joinGuestOrderRows(db: Db, customer: { id: string; sellerId: string; email: string }): Promise<string[]> {
  const joined = await db
    .update(orders)
    .set({ customerId: customer.id, updatedAt: sql`now()` })
    .where(and(eq(orders.sellerId, customer.sellerId), isNull(orders.customerId), sql`lower(${orders.buyerEmail}) = lower(${customer.email})`))
    .returning({ id: orders.id })
  const ids = joined.map((row) => row.id)
  if (ids.length > 0) {
    await db
      .update(couponRedemptions)
      .set({ customerId: customer.id })
      .where(and(inArray(couponRedemptions.orderId, ids), isNull(couponRedemptions.customerId)))
  }
  return ids
}
