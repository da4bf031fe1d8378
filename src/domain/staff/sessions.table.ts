import { index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { staffUsers } from './users.table.js'

/**
 * One login and everything refreshed from it (a refresh-token family). Access tokens name
 * their session (`sid`), so revoking it (logout, password reset, refresh-token reuse)
 * refuses the access tokens too, on every replica, on their next request.
 */
export const staffSessions = pgTable(
  'staff_sessions',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp({ withTimezone: true }),
    /** `logout`, `password_changed`, `refresh_token_reuse`. */
    revokedReason: text(),
  },
  (t) => [index('staff_sessions_user_idx').on(t.userId)],
)

/** Refresh tokens, stored as their HMAC only. Each works once (`used_at`). */
export const staffRefreshTokens = pgTable(
  'staff_refresh_tokens',
  {
    id: uuid().primaryKey().defaultRandom(),
    sessionId: uuid()
      .notNull()
      .references(() => staffSessions.id, { onDelete: 'cascade' }),
    tokenHash: text().notNull().unique('staff_refresh_tokens_hash_key'),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('staff_refresh_tokens_session_idx').on(t.sessionId)],
)

/**
 * The client addresses a user signed in from with the right password, as their HMAC (the table
 * holds no address). During a lock on the account (too many failed logins), the right password
 * from an address seen within the last 30 days still signs its owner in.
 */
export const staffKnownAddresses = pgTable(
  'staff_known_addresses',
  {
    userId: uuid()
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    addressHash: text().notNull(),
    lastSignedInAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.addressHash] })],
)
