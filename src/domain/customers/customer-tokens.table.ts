import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { sellerIdColumn } from '../sellers/sellers.table.js'
import { customerIdColumn } from './customers.table.js'

/**
 * Customer refresh tokens, stored as a keyed hash. Each works once: using one sets `used_at`
 * and issues its successor in the same family (one family per sign-in). Presenting a used
 * one revokes the whole family.
 */
export const customerRefreshTokens = pgTable(
  'customer_refresh_tokens',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    customerId: customerIdColumn(),
    /** Shared by every token descended from the same sign-in. */
    familyId: uuid().notNull(),
    /** HMAC-SHA-256 of the token under a server secret. */
    tokenHash: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('customer_refresh_tokens_hash_key').on(t.tokenHash),
    index('customer_refresh_tokens_customer_idx').on(t.customerId),
    index('customer_refresh_tokens_family_idx').on(t.familyId),
  ],
)

export const ONE_TIME_TOKEN_PURPOSES = ['reset', 'magic_link', 'verify_email'] as const
export type OneTimeTokenPurpose = (typeof ONE_TIME_TOKEN_PURPOSES)[number]

/** Emailed single-use tokens (password reset, magic link, email verification), stored as a keyed hash. */
export const customerOneTimeTokens = pgTable(
  'customer_one_time_tokens',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    customerId: customerIdColumn(),
    purpose: text({ enum: ONE_TIME_TOKEN_PURPOSES }).notNull(),
    tokenHash: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('customer_one_time_tokens_hash_key').on(t.tokenHash), index('customer_one_time_tokens_customer_idx').on(t.customerId, t.purpose)],
)
