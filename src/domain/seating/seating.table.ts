import { sql } from 'drizzle-orm'
import { boolean, check, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { inventories } from '../catalog/inventories.table.js'
import { sellerIdColumn } from '../sellers/sellers.table.js'

/** A category of a plan as stored: its name, colour and how many seats it has. */
export type PlanCategory = { name: string; color: string; seats: number }

/**
 * A seller's venue layout, in pretix's seating-plan JSON (kept as uploaded, unknown properties
 * too). Plans never change: a new layout is a new plan. Its seats are also stored one row each
 * (`seating_plan_seats`), which is what every sale reads.
 */
export const seatingPlans = pgTable(
  'seating_plans',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    name: text().notNull(),
    plan: jsonb().notNull(),
    categories: jsonb().$type<PlanCategory[]>().notNull(),
    seats: integer().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('seating_plans_seller_idx').on(t.sellerId, t.createdAt)],
)

/**
 * One seat of a plan, with where it stands for adjacency: `zoneIndex` and `rowIndex` are the
 * plan's order (`rowIndex` counts rows across the whole plan, so it alone names a row; written by
 * `planSeats`, plan-seats.ts), x and y absolute (zone + row + seat position), `ord` its place in its row ordered by x (then y), `run` the stretch of its row
 * between aisles (a gap over 1.5 x the row's median gap), `rowSeats` how many seats its row has.
 * Two seats are adjacent when they share row and run and their `ord` differ by 1.
 */
export const seatingPlanSeats = pgTable(
  'seating_plan_seats',
  {
    planId: uuid()
      .notNull()
      .references(() => seatingPlans.id, { onDelete: 'cascade' }),
    /** The plan's `seat_guid`. */
    seatId: text().notNull(),
    zoneIndex: integer().notNull(),
    zone: text().notNull(),
    rowIndex: integer().notNull(),
    row: text().notNull(),
    number: text().notNull(),
    category: text().notNull(),
    x: doublePrecision().notNull(),
    y: doublePrecision().notNull(),
    ord: integer().notNull(),
    run: integer().notNull(),
    rowSeats: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.seatId] }), index('seating_plan_seats_category_idx').on(t.planId, t.category, t.zoneIndex, t.rowIndex, t.ord)],
)

/** A seat an inventory does not sell until unblocked (back office). */
export const seatBlocks = pgTable(
  'seat_blocks',
  {
    inventoryId: uuid()
      .notNull()
      .references(() => inventories.id, { onDelete: 'cascade' }),
    seatId: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.inventoryId, t.seatId] }), check('seat_blocks_seat_check', sql`length(${t.seatId}) > 0`)],
)

/**
 * How each seat of a seated inventory stands for good: one row per seat it sells, with where the
 * seat stands for adjacency (copied from `seating_plan_seats`), the valid ticket sold in it and
 * whether it is blocked. Written only by the database, by triggers on the rows it mirrors
 * (src/domain/inventory/sql/inventory_seats_*.sql): an inventory given seating fills it, a ticket
 * sold, voided or deleted sets or clears `ticketId`, a block set or lifted sets `blocked`. Holds
 * are not kept here: they end by the clock, and "held" has one definition (seats_held.sql).
 * `inventory_seats_open_idx` lists the seats neither sold nor blocked in the plan's order, so a
 * best-available hold reads the rows it may take from, not the venue (seats_free.sql).
 */
export const inventorySeats = pgTable(
  'inventory_seats',
  {
    inventoryId: uuid()
      .notNull()
      .references(() => inventories.id, { onDelete: 'cascade' }),
    seatId: text().notNull(),
    zoneIndex: integer().notNull(),
    rowIndex: integer().notNull(),
    ord: integer().notNull(),
    run: integer().notNull(),
    rowSeats: integer().notNull(),
    ticketId: uuid(),
    blocked: boolean().notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.inventoryId, t.seatId] }),
    index('inventory_seats_open_idx').on(t.inventoryId, t.rowIndex, t.run, t.ord).where(sql`${t.ticketId} is null and not ${t.blocked}`),
  ],
)
