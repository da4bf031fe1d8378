import { and, asc, count, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { affiliateEvents, affiliates } from './affiliates.table.js'

/** The active affiliate of this seller with this code (case-insensitive), with its event scope. */
export async function findActiveAffiliateByCode(db: Db, sellerId: string, code: string) {
  const [affiliate] = await db
    .select()
    .from(affiliates)
    .where(and(eq(affiliates.sellerId, sellerId), sql`lower(${affiliates.code}) = lower(${code})`, eq(affiliates.active, true)))
  if (!affiliate) return undefined
  const eventIds = affiliate.allEvents
    ? null
    : (await db.select({ eventId: affiliateEvents.eventId }).from(affiliateEvents).where(eq(affiliateEvents.affiliateId, affiliate.id))).map(
        (row) => row.eventId,
      )
  return { id: affiliate.id, code: affiliate.code, name: affiliate.name, eventIds }
}

export type AffiliateRow = typeof affiliates.$inferSelect
/** An affiliate with its scope: `eventIds` null means every event of the seller, present and future. */
export type ScopedAffiliate = AffiliateRow & { eventIds: string[] | null }

export const insertAffiliate = async (db: Db, values: typeof affiliates.$inferInsert) => (await db.insert(affiliates).values(values).returning())[0]!

/** The affiliate, its row locked until the transaction ends. */
export const lockAffiliateById = async (db: Db, id: string) => (await db.select().from(affiliates).where(eq(affiliates.id, id)).for('no key update'))[0]

export const updateAffiliateRow = async (db: Db, id: string, values: Partial<typeof affiliates.$inferInsert>) =>
  (
    await db
      .update(affiliates)
      .set({ ...values, updatedAt: sql`now()` })
      .where(eq(affiliates.id, id))
      .returning()
  )[0]

export async function insertAffiliateEvents(db: Db, affiliateId: string, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length) await db.insert(affiliateEvents).values(eventIds.map((eventId) => ({ affiliateId, eventId })))
}

/** Replaces the events an affiliate may sell: null for all of them. */
export async function replaceAffiliateEvents(db: Db, affiliateId: string, eventIds: readonly string[] | null): Promise<void> {
  await db
    .update(affiliates)
    .set({ allEvents: eventIds === null })
    .where(eq(affiliates.id, affiliateId))
  await db.delete(affiliateEvents).where(eq(affiliateEvents.affiliateId, affiliateId))
  await insertAffiliateEvents(db, affiliateId, eventIds ?? [])
}

/** Adds each affiliate's event scope (one query for all of them). */
export async function withEventScopes(db: Db, rows: readonly AffiliateRow[]): Promise<ScopedAffiliate[]> {
  const limited = rows.filter((row) => !row.allEvents).map((row) => row.id)
  const links = limited.length
    ? await db.select().from(affiliateEvents).where(inArray(affiliateEvents.affiliateId, limited)).orderBy(asc(affiliateEvents.eventId))
    : []
  return rows.map((row) => ({
    ...row,
    eventIds: row.allEvents ? null : links.filter((link) => link.affiliateId === row.id).map((link) => link.eventId),
  }))
}

/** A seller's affiliates, by code. */
export async function listAffiliateRows(db: Db, sellerId: string, paging: Paging): Promise<Page<AffiliateRow>> {
  const where = eq(affiliates.sellerId, sellerId)
  const rows = await db
    .select()
    .from(affiliates)
    .where(where)
    .orderBy(asc(sql`lower(${affiliates.code})`), asc(affiliates.id))
    .limit(paging.limit)
    .offset(offsetOf(paging))
  const [total] = await db.select({ n: count() }).from(affiliates).where(where)
  return { rows, total: total?.n ?? 0 }
}
