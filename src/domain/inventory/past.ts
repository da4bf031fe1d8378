import { sql } from 'drizzle-orm'
import { inventories } from '../catalog/inventories.table.js'

/**
 * Whether an inventory is dated before its seller's today (`seller_today`, sellers/sql/seller_today.sql, in
 * the seller's time zone): a past inventory is no longer listed as on sale, held or sold.
 * `take_tickets` applies the same rule under the locks.
 */
export const pastSql = sql<boolean>`${inventories.date} < seller_today(${inventories.sellerId})`
