import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
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
