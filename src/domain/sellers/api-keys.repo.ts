import { and, count, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { apiKeys } from './api-keys.table.js'
import { sellers } from './sellers.table.js'

export type ApiKeyRow = typeof apiKeys.$inferSelect

export const insertApiKey = async (db: Db, values: typeof apiKeys.$inferInsert) => (await db.insert(apiKeys).values(values).returning())[0]!

/** A seller's keys, revoked ones included, newest first. */
export async function listApiKeyRows(db: Db, sellerId: string, paging: Paging): Promise<Page<ApiKeyRow>> {
  const where = eq(apiKeys.sellerId, sellerId)
  const rows = await db.select().from(apiKeys).where(where).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)).limit(paging.limit).offset(offsetOf(paging))
  const [total] = await db.select({ n: count() }).from(apiKeys).where(where)
  return { rows, total: total?.n ?? 0 }
}

/** Revokes a key of this seller; answers it, or nothing when the seller has no such key. */
export const revokeApiKeyRow = async (db: Db, sellerId: string, keyId: string) =>
  (
    await db
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.sellerId, sellerId)))
      .returning()
  )[0]

/** The live key with this hash and its active seller, or nothing. */
export const findActiveKeyByHash = async (db: Db, keyHash: string) =>
  (
    await db
      .select({ keyId: apiKeys.id, seller: sellers })
      .from(apiKeys)
      .innerJoin(sellers, eq(sellers.id, apiKeys.sellerId))
      .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt), eq(sellers.status, 'active')))
  )[0]

export const touchApiKey = (db: Db, keyId: string) => db.update(apiKeys).set({ lastUsedAt: sql`now()` }).where(eq(apiKeys.id, keyId))
