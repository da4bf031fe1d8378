import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { staffUsers } from './users.table.js'

/** Password-reset tokens, stored as their HMAC only; single use, short-lived. */
export const staffPasswordResets = pgTable(
  'staff_password_resets',
  {
    id: uuid().primaryKey().defaultRandom(),
    userId: uuid()
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    tokenHash: text().notNull().unique('staff_password_resets_hash_key'),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('staff_password_resets_user_idx').on(t.userId)],
)
