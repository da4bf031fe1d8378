import { sql } from 'drizzle-orm'
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { sellerIdColumn } from '../sellers/sellers.table.js'

/**
 * A storefront customer. It belongs to one seller: the same email may hold separate accounts
 * at two sellers, and is unique within one whatever its case.
 */
export const customers = pgTable(
  'customers',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    /** As the customer typed it; compared in lower case. */
    email: text().notNull(),
    /**
     * argon2id (PHC string). Null when the account has no password: the one set at registration
     * is cleared when the owner first proves the inbox by a magic link (it may be a squatter's).
     */
    passwordHash: text(),
    firstName: text().notNull(),
    lastName: text().notNull(),
    /** When the customer proved control of the address (verification email or magic link). */
    emailVerifiedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('customers_seller_email_key').on(t.sellerId, sql`lower(${t.email})`), index('customers_seller_created_idx').on(t.sellerId, t.createdAt)],
)

/** The customer a row of its account belongs to: required, and the row goes when the customer goes. */
export const customerIdColumn = () =>
  uuid()
    .notNull()
    .references(() => customers.id, { onDelete: 'cascade' })
