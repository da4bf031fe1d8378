import { check, index, integer, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { inventories } from '../catalog/inventories.table.js'
import { coupons } from '../coupons/coupons.table.js'
import { affiliates } from '../sellers/affiliates.table.js'
import { sellerIdColumn } from '../sellers/sellers.table.js'

export const BASKET_STATUSES = ['open', 'checked_out', 'expired'] as const

/**
 * A basket holds its tickets until `expires_at`; an open basket whose `expires_at` has passed
 * holds nothing, whatever its stored status.
 */
export const baskets = pgTable(
  'baskets',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    /** Set when created under `X-Affiliate-Code`; then only that code addresses the basket. */
    affiliateId: uuid().references(() => affiliates.id),
    customerId: uuid(),
    status: text({ enum: BASKET_STATUSES }).notNull().default('open'),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    couponId: uuid().references(() => coupons.id),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('baskets_seller_idx').on(t.sellerId, t.createdAt)],
)

export const basketItems = pgTable(
  'basket_items',
  {
    id: uuid().primaryKey().defaultRandom(),
    basketId: uuid()
      .notNull()
      .references(() => baskets.id, { onDelete: 'cascade' }),
    inventoryId: uuid()
      .notNull()
      .references(() => inventories.id),
    /** The variant (by name) of the inventory this item buys; null: the inventory itself. */
    variant: text(),
    quantity: integer().notNull(),
    couponId: uuid().references(() => coupons.id),
    /** Items read back in the order they were added. */
    position: integer().notNull().default(0),
    /**
     * Until when this item holds its tickets: its basket's `expires_at` while the basket is open,
     * null once it is not. Kept by database triggers (inventory/sql/basket_items_set_held_until.sql, baskets_move_holds.sql) from the basket's status
     * and expiry, never written by the application: "held" reads only the items that hold now.
     */
    heldUntil: timestamp({ withTimezone: true }),
    /** On a seated inventory, the seats (plan seat ids) this item holds, as many as its quantity; null: unseated. */
    seats: text().array(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // One item per inventory and variant; "no variant" is one value (PostgreSQL 15's NULLS NOT DISTINCT).
    unique('basket_items_basket_inventory_variant_key').on(t.basketId, t.inventoryId, t.variant).nullsNotDistinct(),
    index('basket_items_inventory_idx').on(t.inventoryId),
    index('basket_items_held_idx').on(t.inventoryId, t.heldUntil).where(sql`${t.heldUntil} is not null`),
    check('basket_items_quantity_check', sql`${t.quantity} between 1 and 20`),
    check('basket_items_seats_check', sql`${t.seats} is null or cardinality(${t.seats}) = ${t.quantity}`),
  ],
)
