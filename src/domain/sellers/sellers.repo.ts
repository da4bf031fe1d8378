import { and, count, desc, eq, ilike, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { sellers } from './sellers.table.js'

export type SellerRow = typeof sellers.$inferSelect
export type NewSellerRow = typeof sellers.$inferInsert
export type SellerStatus = SellerRow['status']

export const insertSeller = async (db: Db, values: NewSellerRow) => (await db.insert(sellers).values(values).returning())[0]!

export const findSellerById = async (db: Db, id: string) => (await db.select().from(sellers).where(eq(sellers.id, id)))[0]

/**
 * The seller, its row locked until the transaction ends against other changes of the seller
 * (not against rows that merely reference it: FOR NO KEY UPDATE).
 */
export const lockSellerById = async (db: Db, id: string) => (await db.select().from(sellers).where(eq(sellers.id, id)).for('no key update'))[0]

export const updateSellerRow = async (db: Db, id: string, values: Partial<NewSellerRow>) =>
  (
    await db
      .update(sellers)
      .set({ ...values, updatedAt: sql`now()` })
      .where(eq(sellers.id, id))
      .returning()
  )[0]

export type SellerFilter = { status?: SellerStatus | undefined; q?: string | undefined }

/** Newest first; `q` is a case-insensitive substring of the name. */
export async function listSellerRows(db: Db, filter: SellerFilter, paging: Paging): Promise<Page<SellerRow>> {
  const where = and(filter.status ? eq(sellers.status, filter.status) : undefined, filter.q ? ilike(sellers.name, likePattern(filter.q)) : undefined)
  const rows = await db.select().from(sellers).where(where).orderBy(desc(sellers.createdAt), desc(sellers.id)).limit(paging.limit).offset(offsetOf(paging))
  const [total] = await db.select({ n: count() }).from(sellers).where(where)
  return { rows, total: total?.n ?? 0 }
}

/** A LIKE pattern matching `text` anywhere, with its wildcards taken literally. */
const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
