import { doublePrecision, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'

export const SELLER_STATUSES = ['active', 'disabled'] as const

/** A partner selling under its own brand. Its settings shape baskets and installments. */
export const sellers = pgTable('sellers', {
  id: uuid().primaryKey().defaultRandom(),
  name: text().notNull(),
  /** Base of the links in customer emails: `{storefront_url}/verify-email?token=...`. */
  storefrontUrl: text().notNull(),
  status: text({ enum: SELLER_STATUSES }).notNull().default('active'),
  basketTtlSeconds: integer().notNull().default(900),
  maxInstallments: integer().notNull().default(12),
  interestFreeInstallments: integer().notNull().default(1),
  monthlyRate: doublePrecision().notNull().default(0.0299),
  minInstallmentAmount: integer().notNull().default(500),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
})
