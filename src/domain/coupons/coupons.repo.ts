import { and, asc, count, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { couponRedemptions, orders } from '../orders/orders.table.js'
import { coupons } from './coupons.table.js'

export type CouponRow = typeof coupons.$inferSelect
export type NewCouponRow = typeof coupons.$inferInsert

export const insertCoupon = async (db: Db, values: NewCouponRow) => (await db.insert(coupons).values(values).returning())[0]!

/** The coupon, its row locked until the transaction ends (checkout counts its uses under the same lock). */
export const lockCouponById = async (db: Db, id: string) => (await db.select().from(coupons).where(eq(coupons.id, id)).for('no key update'))[0]

export const updateCouponRow = async (db: Db, id: string, values: Partial<NewCouponRow>) =>
  (
    await db
      .update(coupons)
      .set({ ...values, updatedAt: sql`now()` })
      .where(eq(coupons.id, id))
      .returning()
  )[0]

/** A seller's coupons by code, optionally only active or inactive ones. */
export async function listCouponRows(db: Db, sellerId: string, filter: { active?: boolean | undefined }, paging: Paging): Promise<Page<CouponRow>> {
  const where = and(eq(coupons.sellerId, sellerId), filter.active !== undefined ? eq(coupons.active, filter.active) : undefined)
  const rows = await db
    .select()
    .from(coupons)
    .where(where)
    .orderBy(asc(sql`lower(${coupons.code})`), asc(coupons.id))
    .limit(paging.limit)
    .offset(offsetOf(paging))
  const [total] = await db.select({ n: count() }).from(coupons).where(where)
  return { rows, total: total?.n ?? 0 }
}

/** The select of the coupons of these ids; its callers skip the query when there are none. */
const selectCouponsByIds = (db: Db, ids: readonly string[]) =>
  db
    .select()
    .from(coupons)
    .where(inArray(coupons.id, [...ids]))

/** Coupons by id (the ones a basket refers to). */
export const findCouponsByIds = (db: Db, ids: readonly string[]) => (ids.length === 0 ? Promise.resolve([] as CouponRow[]) : selectCouponsByIds(db, ids))

/** A seller's coupon by code, case-insensitively. */
export const findCouponByCode = async (db: Db, sellerId: string, code: string) =>
  (
    await db
      .select()
      .from(coupons)
      .where(and(eq(coupons.sellerId, sellerId), sql`lower(${coupons.code}) = lower(${code})`))
  )[0]

/** Locks coupon rows in id order (after the inventories, always). */
export const lockCoupons = (db: Db, ids: readonly string[]) =>
  ids.length === 0 ? Promise.resolve([] as CouponRow[]) : selectCouponsByIds(db, ids).orderBy(asc(coupons.id)).for('no key update')

/**
 * Who a per-customer coupon limit counts for: a customer by its account, a guest (docs/selling.md) by
 * its email, whatever its case, over every order placed with it (a guest's and an account's alike).
 */
export type Redeemer = { customerId: string } | { sellerId: string; email: string }

/** Confirmed orders of a customer (or a guest's email) per coupon, for `max_uses_per_customer`. */
export async function countCustomerRedemptions(db: Db, redeemer: Redeemer, couponIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  if (couponIds.length === 0) return counts
  const ofCoupons = inArray(couponRedemptions.couponId, [...couponIds])
  const query = db.select({ couponId: couponRedemptions.couponId, uses: sql<number>`count(*)::int` }).from(couponRedemptions)
  const rows = await ('customerId' in redeemer
    ? query.where(and(eq(couponRedemptions.customerId, redeemer.customerId), ofCoupons))
    : query
        .innerJoin(orders, eq(orders.id, couponRedemptions.orderId))
        .where(and(eq(orders.sellerId, redeemer.sellerId), sql`lower(${orders.buyerEmail}) = lower(${redeemer.email})`, ofCoupons))
  ).groupBy(couponRedemptions.couponId)
  for (const row of rows) counts.set(row.couponId, Number(row.uses))
  return counts
}

/** The redeemer of an order: its customer, else its buyer's email. */
export const redeemerOf = (order: { customerId: string | null; sellerId: string; buyerEmail: string }): Redeemer =>
  order.customerId ? { customerId: order.customerId } : { sellerId: order.sellerId, email: order.buyerEmail }

/**
 * Takes one use of each coupon again for an order coming back to life (an expired order paid,
 * docs/payments.md), within every limit, total and per customer: the coupons locked in id order (after
 * the inventories, as a checkout locks them). Answers false, having taken nothing that counts
 * (the caller rolls back), when one is used up.
 */
export async function redeemCouponsAgain(
  db: Db,
  order: { id: string; customerId: string | null; sellerId: string; buyerEmail: string },
  couponIds: readonly string[],
): Promise<boolean> {
  if (couponIds.length === 0) return true
  const locked = await lockCoupons(db, couponIds)
  const byCustomer = await countCustomerRedemptions(db, redeemerOf(order), couponIds)
  for (const coupon of locked) {
    if (coupon.maxUses !== null && coupon.uses >= coupon.maxUses) return false
    if (coupon.maxUsesPerCustomer !== null && (byCustomer.get(coupon.id) ?? 0) >= coupon.maxUsesPerCustomer) return false
  }
  await db
    .update(coupons)
    .set({ uses: sql`${coupons.uses} + 1` })
    .where(inArray(coupons.id, [...couponIds]))
  await db.insert(couponRedemptions).values(couponIds.map((couponId) => ({ couponId, orderId: order.id, customerId: order.customerId })))
  return true
}
