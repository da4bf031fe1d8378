import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { sellerIdColumn } from './sellers.table.js'

/** A seller's API keys: only a keyed hash is stored; the key itself is shown once. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    /** HMAC-SHA-256 of the key under a server secret. */
    keyHash: text().notNull(),
    /** The first characters of the key, to tell keys apart in lists (`sk_AbCd…`). */
    prefix: text().notNull(),
    name: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (t) => [uniqueIndex('api_keys_key_hash_key').on(t.keyHash), index('api_keys_seller_idx').on(t.sellerId)],
)
