import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { couponRedemptions } from '../orders/orders.table.js'
import { coupons } from './coupons.table.js'

export type CouponRow = typeof coupons.$inferSelect

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
