import { sql } from 'drizzle-orm'
import { boolean, check, numeric, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { eventIdColumn } from '../catalog/events.table.js'
import { sellerIdColumn } from './sellers.table.js'

/**
 * An affiliate sells a seller's events under its code (`X-Affiliate-Code`). Without rows in
 * `affiliate_events` it may sell every event of the seller.
 */
export const affiliates = pgTable(
  'affiliates',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    code: text().notNull(),
    name: text().notNull(),
    active: boolean().notNull().default(true),
    /** False: only the events listed in `affiliate_events`. */
    allEvents: boolean().notNull().default(true),
    /** Its share of the net it sold (0..1; docs/reports.md), exact: commissions are computed in numeric and rounded half-up to the centavo. */
    commissionRate: numeric({ precision: 6, scale: 5 }).notNull().default('0'),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('affiliates_seller_code_key').on(t.sellerId, sql`lower(${t.code})`),
    check('affiliates_commission_rate_check', sql`${t.commissionRate} between 0 and 1`),
  ],
)

export const affiliateEvents = pgTable(
  'affiliate_events',
  {
    affiliateId: uuid()
      .notNull()
      .references(() => affiliates.id, { onDelete: 'cascade' }),
    eventId: eventIdColumn(),
  },
  (t) => [primaryKey({ columns: [t.affiliateId, t.eventId] })],
)
