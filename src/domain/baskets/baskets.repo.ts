import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { events } from '../catalog/events.table.js'
import { inventories } from '../catalog/inventories.table.js'
import { coupons } from '../coupons/coupons.table.js'
import { couponRedemptions } from '../orders/orders.table.js'
import { affiliates } from '../sellers/affiliates.table.js'
import { basketItems, baskets } from './baskets.table.js'

export type BasketRow = typeof baskets.$inferSelect
export type CouponRow = typeof coupons.$inferSelect

/** A basket with what every answer about it needs: the affiliate's code and the database clock. */
export type BasketState = BasketRow & { affiliateCode: string | null; expired: boolean; now: Date }

const basketState = {
  basket: baskets,
  affiliateCode: affiliates.code,
  expired: sql<boolean>`${baskets.expiresAt} <= now()`,
  // The database's clock, so that expiry and coupon windows are judged by one clock.
  nowMs: sql<number>`(extract(epoch from now()) * 1000)::float8`.mapWith(Number),
}

const toState = (row: { basket: BasketRow; affiliateCode: string | null; expired: boolean; nowMs: number }): BasketState => ({
  ...row.basket,
  affiliateCode: row.affiliateCode,
  expired: Boolean(row.expired),
  now: new Date(row.nowMs),
})

/** A seller's basket, without locking. */
export async function findBasket(db: Db, sellerId: string, basketId: string): Promise<BasketState | undefined> {
  const [row] = await db
    .select(basketState)
    .from(baskets)
    .leftJoin(affiliates, eq(affiliates.id, baskets.affiliateId))
    .where(and(eq(baskets.id, basketId), eq(baskets.sellerId, sellerId)))
  return row && toState(row)
}

/** A seller's basket, locked for the rest of the transaction: changes to one basket run one at a time. */
export async function lockBasket(db: Db, sellerId: string, basketId: string): Promise<BasketState | undefined> {
  const [row] = await db
    .select(basketState)
    .from(baskets)
    .leftJoin(affiliates, eq(affiliates.id, baskets.affiliateId))
    .where(and(eq(baskets.id, basketId), eq(baskets.sellerId, sellerId)))
    .for('update', { of: baskets })
  return row && toState(row)
}

/** The items of a basket with their inventory's current name, price, event and date. */
export const listBasketLines = (db: Db, basketId: string) =>
  db
    .select({
      id: basketItems.id,
      inventoryId: basketItems.inventoryId,
      quantity: basketItems.quantity,
      couponId: basketItems.couponId,
      position: basketItems.position,
      eventId: inventories.eventId,
      date: inventories.date,
      name: inventories.name,
      unitPrice: inventories.price,
    })
    .from(basketItems)
    .innerJoin(inventories, eq(inventories.id, basketItems.inventoryId))
    .where(eq(basketItems.basketId, basketId))
    .orderBy(asc(basketItems.position), asc(basketItems.id))

export type BasketLine = Awaited<ReturnType<typeof listBasketLines>>[number]

export type InventoryState = {
  id: string
  eventId: string
  date: string
  name: string
  capacity: number
  sold: number
  price: number
  eventStatus: string
}

const inventoryState = {
  id: inventories.id,
  eventId: inventories.eventId,
  date: inventories.date,
  name: inventories.name,
  capacity: inventories.capacity,
  sold: inventories.sold,
  price: inventories.price,
  eventStatus: events.status,
}

const inventoriesOf = (db: Db, sellerId: string, inventoryIds: readonly string[]) =>
  db
    .select(inventoryState)
    .from(inventories)
    .innerJoin(events, eq(events.id, inventories.eventId))
    .where(and(inArray(inventories.id, [...inventoryIds]), eq(inventories.sellerId, sellerId)))
    .orderBy(asc(inventories.id))

/** A seller's inventory rows as committed now, without locking. Other sellers' ids are absent. */
export const readInventories = async (db: Db, sellerId: string, inventoryIds: readonly string[]): Promise<InventoryState[]> =>
  inventoryIds.length === 0 ? [] : inventoriesOf(db, sellerId, inventoryIds)

/**
 * Locks a seller's inventory rows, in id order so that two transactions wanting the same rows
 * queue instead of deadlocking. Other sellers' ids are absent from the answer.
 */
export const lockInventories = async (db: Db, sellerId: string, inventoryIds: readonly string[]): Promise<InventoryState[]> =>
  inventoryIds.length === 0 ? [] : inventoriesOf(db, sellerId, inventoryIds).for('update', { of: inventories })

/** Coupons by id (the ones a basket refers to). */
export const findCouponsByIds = (db: Db, ids: readonly string[]) =>
  ids.length === 0 ? Promise.resolve([] as CouponRow[]) : db.select().from(coupons).where(inArray(coupons.id, [...ids]))

/** A seller's coupon by code, case-insensitively. */
export const findCouponByCode = async (db: Db, sellerId: string, code: string) =>
  (await db.select().from(coupons).where(and(eq(coupons.sellerId, sellerId), sql`lower(${coupons.code}) = lower(${code})`)))[0]

/** Locks coupon rows in id order (after the inventories, always). */
export const lockCoupons = (db: Db, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([] as CouponRow[])
    : db
        .select()
        .from(coupons)
        .where(inArray(coupons.id, [...ids]))
        .orderBy(asc(coupons.id))
        .for('update')

/** Confirmed orders of a customer per coupon, for `max_uses_per_customer`. */
export async function countCustomerRedemptions(db: Db, customerId: string, couponIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  if (couponIds.length === 0) return counts
  const rows = await db
    .select({ couponId: couponRedemptions.couponId, uses: sql<number>`count(*)::int` })
    .from(couponRedemptions)
    .where(and(eq(couponRedemptions.customerId, customerId), inArray(couponRedemptions.couponId, [...couponIds])))
    .groupBy(couponRedemptions.couponId)
  for (const row of rows) counts.set(row.couponId, Number(row.uses))
  return counts
}

/**
 * Extends the hold. Only in a transaction that also runs `holdTickets` over every item of the
 * basket: the renewed hold is valid only because that check passed under the inventory locks.
 */
export const renewBasket = async (db: Db, basketId: string, ttlSeconds: number, changes: Partial<Pick<BasketRow, 'couponId' | 'customerId'>> = {}) =>
  (
    await db
      .update(baskets)
      .set({ ...changes, expiresAt: sql`now() + make_interval(secs => ${ttlSeconds})`, updatedAt: sql`now()` })
      .where(eq(baskets.id, basketId))
      .returning()
  )[0]!

type ItemRow = typeof basketItems.$inferSelect

/** Writes the quantities of a basket's items, keeping the ids, positions and coupons of those it had. */
export const upsertBasketItems = (db: Db, rows: (typeof basketItems.$inferInsert)[]): Promise<ItemRow[]> =>
  rows.length === 0
    ? Promise.resolve([])
    : db
        .insert(basketItems)
        .values(rows)
        .onConflictDoUpdate({ target: [basketItems.basketId, basketItems.inventoryId], set: { quantity: sql`excluded.quantity` } })
        .returning()

/** Basket lines from item rows and the inventories they hold, in the order the items were added. */
export const toLines = (items: ItemRow[], inventoryById: ReadonlyMap<string, InventoryState>): BasketLine[] =>
  items
    .map((item) => {
      const inventory = inventoryById.get(item.inventoryId)!
      return {
        id: item.id,
        inventoryId: item.inventoryId,
        quantity: item.quantity,
        couponId: item.couponId,
        position: item.position,
        eventId: inventory.eventId,
        date: inventory.date,
        name: inventory.name,
        unitPrice: inventory.price,
      }
    })
    .sort((x, y) => x.position - y.position || (x.id < y.id ? -1 : 1))
