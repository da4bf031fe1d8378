import { sql } from 'drizzle-orm'
import { boolean, check, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { sellerIdColumn } from '../sellers/sellers.table.js'

export const COUPON_TYPES = ['percent', 'fixed'] as const

/**
 * A discount code of a seller. `percent` values are 1..100, `fixed` values centavos.
 * Empty `eventIds` and `inventoryIds` mean the coupon covers everything.
 */
export const coupons = pgTable(
  'coupons',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    code: text().notNull(),
    type: text({ enum: COUPON_TYPES }).notNull(),
    value: integer().notNull(),
    eventIds: jsonb().$type<string[]>().notNull().default([]),
    inventoryIds: jsonb().$type<string[]>().notNull().default([]),
    startsAt: timestamp({ withTimezone: true }),
    endsAt: timestamp({ withTimezone: true }),
    maxUses: integer(),
    maxUsesPerCustomer: integer(),
    minSubtotal: integer(),
    active: boolean().notNull().default(true),
    /** Redemptions so far, counted at checkout. */
    uses: integer().notNull().default(0),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('coupons_seller_code_key').on(t.sellerId, sql`lower(${t.code})`),
    check('coupons_value_check', sql`(${t.type} = 'percent' and ${t.value} between 1 and 100) or (${t.type} = 'fixed' and ${t.value} >= 1)`),
    check('coupons_uses_check', sql`${t.maxUses} is null or ${t.uses} <= ${t.maxUses}`),
  ],
)
