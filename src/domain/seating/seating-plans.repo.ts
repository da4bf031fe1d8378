import { and, asc, count, desc, eq, exists, getTableColumns, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { events } from '../catalog/events.table.js'
import { inventories } from '../catalog/inventories.table.js'
import type { PlanSeat } from './plan-seats.js'
import { seatingPlanSeats, seatingPlans } from './seating.table.js'

export type SeatingPlanRow = typeof seatingPlans.$inferSelect
export type NewSeatingPlanRow = typeof seatingPlans.$inferInsert
/** A plan without its document, as lists show it. */
export type SeatingPlanSummary = Omit<SeatingPlanRow, 'plan'>
export type PlanSeatRow = typeof seatingPlanSeats.$inferSelect

const { plan: _plan, ...summaryColumns } = getTableColumns(seatingPlans)

export const insertPlanRow = async (db: Db, values: NewSeatingPlanRow) => (await db.insert(seatingPlans).values(values).returning())[0]!

/**
 * A plan's seats, one statement whatever their number: one array per column (`unnest`), so that
 * 100,000 seats are 12 parameters, not 1.3 million. An insert from a select names every column of
 * the table, in its order.
 */
export async function insertPlanSeats(db: Db, planId: string, seats: readonly PlanSeat[]): Promise<void> {
  const column = <T>(pick: (seat: PlanSeat) => T) => sql.param(seats.map(pick))
  await db.insert(seatingPlanSeats).select(
    sql`select ${planId}::uuid, u.seat_id, u.zone_index, u.zone, u.row_index, u.row, u.number, u.category, u.x, u.y, u.ord, u.run, u.row_seats
          from unnest(${column((s) => s.seatId)}::text[], ${column((s) => s.zoneIndex)}::int[], ${column((s) => s.zone)}::text[],
                      ${column((s) => s.rowIndex)}::int[], ${column((s) => s.row)}::text[], ${column((s) => s.number)}::text[],
                      ${column((s) => s.category)}::text[], ${column((s) => s.x)}::float8[], ${column((s) => s.y)}::float8[],
                      ${column((s) => s.ord)}::int[], ${column((s) => s.run)}::int[], ${column((s) => s.rowSeats)}::int[])
            as u(seat_id, zone_index, zone, row_index, row, number, category, x, y, ord, run, row_seats)`,
  )
}

export const findPlanById = async (db: Db, id: string) => (await db.select().from(seatingPlans).where(eq(seatingPlans.id, id)))[0]

/** The plan, its row locked until the transaction ends (a delete decides on it). */
export const lockPlanById = async (db: Db, id: string) => (await db.select(summaryColumns).from(seatingPlans).where(eq(seatingPlans.id, id)).for('update'))[0]

/** A plan of this seller, with its document; undefined for another seller's plan as for a missing one. */
export const findSellerPlan = async (db: Db, sellerId: string, planId: string) =>
  (
    await db
      .select()
      .from(seatingPlans)
      .where(and(eq(seatingPlans.id, planId), eq(seatingPlans.sellerId, sellerId)))
  )[0]

/** A plan's seats (of one category, if given), in the plan's order: zone, row, place in the row. */
export const findPlanSeats = (db: Db, planId: string, category?: string): Promise<PlanSeatRow[]> =>
  db
    .select()
    .from(seatingPlanSeats)
    .where(and(eq(seatingPlanSeats.planId, planId), category === undefined ? undefined : eq(seatingPlanSeats.category, category)))
    .orderBy(asc(seatingPlanSeats.zoneIndex), asc(seatingPlanSeats.rowIndex), asc(seatingPlanSeats.ord))

/** A seller's plans, newest first, without their documents. */
export async function listPlanRows(db: Db, sellerId: string, paging: Paging): Promise<Page<SeatingPlanSummary>> {
  const where = eq(seatingPlans.sellerId, sellerId)
  const rows = await db
    .select(summaryColumns)
    .from(seatingPlans)
    .where(where)
    .orderBy(desc(seatingPlans.createdAt), desc(seatingPlans.id))
    .limit(paging.limit)
    .offset(offsetOf(paging))
  const [total] = await db.select({ n: count() }).from(seatingPlans).where(where)
  return { rows, total: total?.n ?? 0 }
}

/** Whether any inventory sells seats of the plan. */
export const isPlanInUse = async (db: Db, planId: string) =>
  (await db.select({ id: inventories.id }).from(inventories).where(eq(inventories.seatingPlanId, planId)).limit(1)).length > 0

export const deletePlanRow = (db: Db, planId: string) => db.delete(seatingPlans).where(eq(seatingPlans.id, planId))

/**
 * A plan of this seller that an inventory of one of its published events uses (within the
 * affiliate's events when `scope` is a list); undefined otherwise.
 */
export async function findPublishedPlan(db: Db, sellerId: string, planId: string, scope: readonly string[] | null) {
  const usedByPublishedEvent = db
    .select({ one: sql`1` })
    .from(inventories)
    .innerJoin(events, eq(events.id, inventories.eventId))
    .where(
      and(
        eq(inventories.seatingPlanId, seatingPlans.id),
        eq(inventories.sellerId, sellerId),
        eq(events.status, 'published'),
        scope === null ? undefined : scope.length === 0 ? sql`false` : inArray(events.id, [...scope]),
      ),
    )
  const [row] = await db
    .select()
    .from(seatingPlans)
    .where(and(eq(seatingPlans.id, planId), eq(seatingPlans.sellerId, sellerId), exists(usedByPublishedEvent)))
  return row
}

/** Refreshes the planner's statistics of the plans' seats (ANALYZE samples a bounded number of rows). */
export async function analyzePlanSeats(db: Db): Promise<void> {
  await db.execute(sql`analyze seating_plan_seats`)
}
