import { and, asc, count, eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { coupons } from './coupons.table.js'

export type CouponRow = typeof coupons.$inferSelect
export type NewCouponRow = typeof coupons.$inferInsert

export const insertCoupon = async (db: Db, values: NewCouponRow) => (await db.insert(coupons).values(values).returning())[0]!

/** The coupon, its row locked until the transaction ends (checkout counts its uses under the same lock). */
export const lockCouponById = async (db: Db, id: string) => (await db.select().from(coupons).where(eq(coupons.id, id)).for('no key update'))[0]

export const updateCouponRow = async (db: Db, id: string, values: Partial<NewCouponRow>) =>
  (await db.update(coupons).set({ ...values, updatedAt: sql`now()` }).where(eq(coupons.id, id)).returning())[0]

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
