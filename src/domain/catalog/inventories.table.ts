import { sql } from 'drizzle-orm'
import { boolean, check, date, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { sellerIdColumn } from '../sellers/sellers.table.js'
import { eventIdColumn } from './events.table.js'

/** A way to buy an inventory's tickets (e.g. half price); it shares the inventory's capacity. No `price`: the inventory's. */
export type InventoryVariant = {
  name: string
  description: string
  type: string
  price?: number | undefined
  /** The gate checks something when it admits this variant (e.g. proof of a half-price right). */
  checkin_attention?: boolean | undefined
}

/**
 * One kind of ticket on one date of an event. `sold` counts confirmed tickets; holds of
 * open baskets are counted from the baskets. available = capacity - sold - held.
 */
export const inventories = pgTable(
  'inventories',
  {
    id: uuid().primaryKey().defaultRandom(),
    /** Denormalised from the event, so every query can be scoped to the tenant directly. */
    sellerId: sellerIdColumn(),
    eventId: eventIdColumn(),
    date: date({ mode: 'string' }).notNull(),
    /** The show's local start on `date` (`HH:MM`, the seller's time zone) and when its doors open; null: not said (docs/selling.md). */
    time: text(),
    doorsTime: text(),
    name: text().notNull(),
    price: integer().notNull(),
    capacity: integer().notNull(),
    sold: integer().notNull().default(0),
    variants: jsonb().$type<InventoryVariant[]>().notNull().default([]),
    /** Buyers may join its waiting list when they cannot buy (src/domain/waiting-list). */
    waitingList: boolean().notNull().default(false),
    /** The gate checks something when it admits these tickets (e.g. an ID): scans answer `attention`. */
    checkinAttention: boolean().notNull().default(false),
    /** Its tickets may be given to someone else (docs/transfers.md), until `transferClosesHours` before their date (or time). */
    transferable: boolean().notNull().default(true),
    transferClosesHours: integer().notNull().default(0),
    /** Reserved seating: the plan whose `seatingCategory` seats it sells (its capacity is their number); null: unseated. */
    seatingPlanId: uuid(),
    seatingCategory: text(),
    /** Seats blocked by the back office (`seat_blocks`): never sold, not available. */
    seatsBlocked: integer().notNull().default(0),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('inventories_event_date_idx').on(t.eventId, t.date),
    index('inventories_seller_idx').on(t.sellerId),
    check('inventories_price_check', sql`${t.price} >= 0`),
    check('inventories_sold_check', sql`${t.sold} >= 0 and ${t.sold} <= ${t.capacity}`),
    check('inventories_seating_check', sql`(${t.seatingPlanId} is null) = (${t.seatingCategory} is null)`),
    check('inventories_seats_blocked_check', sql`${t.seatsBlocked} >= 0 and ${t.seatsBlocked} <= ${t.capacity}`),
    check('inventories_time_check', sql`${t.time} ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$' and ${t.doorsTime} ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'`),
    check('inventories_transfer_closes_hours_check', sql`${t.transferClosesHours} between 0 and 720`),
    check('inventories_doors_time_check', sql`${t.doorsTime} <= ${t.time}`),
    index('inventories_seating_plan_idx').on(t.seatingPlanId),
  ],
)
