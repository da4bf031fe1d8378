import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { sellerIdColumn } from '../sellers/sellers.table.js'

/**
 * `Idempotency-Key` of a storefront call, per seller. The row is inserted in the same
 * transaction as the work it guards, so a concurrent duplicate waits on the unique index and
 * then replays the stored answer; a failed attempt rolls its row back and leaves the key free.
 * A row older than 24 hours no longer binds its key.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    key: text().notNull(),
    /** Hash of the operation, its target and its body: the same key with another request conflicts. */
    fingerprint: text().notNull(),
    responseStatus: integer(),
    /** The answer's JSON text, kept as sent so a replay is byte for byte the same. */
    responseBody: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('idempotency_keys_seller_key_key').on(t.sellerId, t.key), index('idempotency_keys_created_idx').on(t.createdAt)],
)
