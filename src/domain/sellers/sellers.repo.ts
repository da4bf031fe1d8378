import { eq } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { sellers } from './sellers.table.js'

export type SellerRow = typeof sellers.$inferSelect
export type NewSellerRow = typeof sellers.$inferInsert

export const insertSeller = async (db: Db, values: NewSellerRow) => (await db.insert(sellers).values(values).returning())[0]!

export const findSellerById = async (db: Db, id: string) => (await db.select().from(sellers).where(eq(sellers.id, id)))[0]
