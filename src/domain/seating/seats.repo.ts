import { and, asc, eq, isNotNull, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { inventories } from '../catalog/inventories.table.js'
import type { Seat } from '../inventory/inventory.repo.js'
import { seatBlocks, seatingPlanSeats, seatingPlans } from './seating.table.js'

/**
 * The seats' readings of the map and the back office. How a seat stands is read from
 * seat_standings (src/domain/inventory/sql/seat_standings.sql) and nowhere else: these statements
 * only join it to the plan's seats for their names and positions.
 */

/** A seat's state as seat_standings says it. */
export type SeatStatus = 'free' | 'held' | 'sold' | 'blocked'

/** A seated inventory of an event: its date, the plan it sells seats of and which category. */
export type SeatedInventory = { id: string; sellerId: string; date: string; planId: string; category: string }

/** The seated inventories of an event (on `date` only, when given), by date. */
export const findSeatedInventories = (db: Db, eventId: string, date?: string): Promise<SeatedInventory[]> =>
  db
    .select({
      id: inventories.id,
      sellerId: inventories.sellerId,
      date: inventories.date,
      planId: sql<string>`${inventories.seatingPlanId}`,
      category: sql<string>`${inventories.seatingCategory}`,
    })
    .from(inventories)
    .where(and(eq(inventories.eventId, eventId), isNotNull(inventories.seatingPlanId), date === undefined ? undefined : eq(inventories.date, date)))
    .orderBy(asc(inventories.date), asc(inventories.id))

/** What the map draws of a plan besides its seats: its categories' colours and its size, without reading the whole document. */
export async function findPlanDrawing(db: Db, planId: string) {
  const [row] = await db
    .select({ categories: seatingPlans.categories, size: sql<{ width: unknown; height: unknown } | null>`${seatingPlans.plan}->'size'` })
    .from(seatingPlans)
    .where(eq(seatingPlans.id, planId))
  return row
}

/** A seat of a plan as the map names and draws it. */
export type PlanPlace = Seat & { x: number; y: number }

/** Every seat of a plan, in the plan's order (zone, row, place in the row). */
export const readPlanPlaces = async (db: Db, planId: string): Promise<PlanPlace[]> =>
  await db
    .select({
      id: seatingPlanSeats.seatId,
      zone: seatingPlanSeats.zone,
      row: seatingPlanSeats.row,
      number: seatingPlanSeats.number,
      category: seatingPlanSeats.category,
      x: seatingPlanSeats.x,
      y: seatingPlanSeats.y,
    })
    .from(seatingPlanSeats)
    .where(eq(seatingPlanSeats.planId, planId))
    .orderBy(asc(seatingPlanSeats.zoneIndex), asc(seatingPlanSeats.rowIndex), asc(seatingPlanSeats.ord))

/** A seat's state on the storefront's map, besides free: as seat_standings says, or `reserved`. */
export type MapTakenStatus = Exclude<SeatStatus, 'free'> | 'reserved'

/**
 * The seats of these inventories that are not free to the public, with their state; every other
 * seat they sell is free. `reserved`: a free seat of an inventory whose waiting list holds its
 * free tickets back (tickets_queued.sql, the rule the holds follow: take_tickets.sql refuses to
 * name such a seat). seat_standings is asked once per inventory with its id as a constant: the
 * planner then reads each inventory's holds, blocks and tickets once and hashes them (asked with a
 * column of another table, it may rescan them for every seat).
 */
export async function readTakenSeats(db: Db, inventoryIds: readonly string[]): Promise<{ seat_id: string; status: MapTakenStatus }[]> {
  if (inventoryIds.length === 0) return []
  const standings = sql.join(
    inventoryIds.map(
      (id) => sql`select st.seat_id, case when st.status = 'free' then 'reserved' else st.status end as status
                    from tickets_queued(${id}::uuid) q cross join lateral seat_standings(${id}::uuid, null, null) st
                   where st.status <> 'free' or q.queued`,
    ),
    sql` union all `,
  )
  const { rows } = await db.execute<{ seat_id: string; status: MapTakenStatus }>(standings)
  return rows
}

/** A seat of an inventory as the back office sees it: its state and who has it (the holding basket, or the order and ticket sold). */
export type InventorySeatRow = Seat & { status: SeatStatus; basket_id: string | null; order_id: string | null; identifier: string | null }

/** A page of an inventory's seats (of one state, if given), in the plan's order. */
export async function listInventorySeatRows(db: Db, inventoryId: string, status: SeatStatus | undefined, paging: Paging): Promise<Page<InventorySeatRow>> {
  const only = status === undefined ? sql`true` : sql`st.status = ${status}`
  const { rows } = await db.execute<InventorySeatRow>(sql`
      select s.seat_id as id, s.zone, s.row, s.number, s.category, st.status, st.basket_id, t.order_id, t.identifier
        from inventories i
        cross join lateral seat_standings(i.id, null, null) st
        join seating_plan_seats s on s.plan_id = i.seating_plan_id and s.seat_id = st.seat_id
        left join tickets t on t.id = st.ticket_id
       where i.id = ${inventoryId} and ${only}
       order by st.zone_index, st.row_index, st.ord
       limit ${paging.limit} offset ${offsetOf(paging)}`)
  const { rows: counted } = await db.execute<{ n: number }>(
    sql`select count(*)::int as n from seat_standings(${inventoryId}::uuid, null, null) st where ${only}`,
  )
  return { rows, total: Number(counted[0]?.n ?? 0) }
}

/** The named seats of an inventory as they stand (those it does not sell are absent), in the plan's order. */
export async function readSeatStandings(db: Db, inventoryId: string, seatIds: readonly string[]): Promise<(Seat & { status: SeatStatus })[]> {
  const { rows } = await db.execute<Seat & { status: SeatStatus }>(sql`
    select s.seat_id as id, s.zone, s.row, s.number, s.category, st.status
      from inventories i
      cross join lateral seat_standings(i.id, null, null) st
      join seating_plan_seats s on s.plan_id = i.seating_plan_id and s.seat_id = st.seat_id
     where i.id = ${inventoryId} and st.seat_id = any(${sql.param([...seatIds])}::text[])
     order by st.zone_index, st.row_index, st.ord`)
  return rows
}

/**
 * Blocks (or unblocks) seats of an inventory and keeps `inventories.seats_blocked` equal to its
 * blocks' number. Lock the inventory first (lockInventories), in the same transaction.
 */
export async function writeSeatBlocks(db: Db, inventoryId: string, seatIds: readonly string[], blocked: boolean): Promise<void> {
  if (blocked) {
    await db
      .insert(seatBlocks)
      .values(seatIds.map((seatId) => ({ inventoryId, seatId })))
      .onConflictDoNothing()
  } else {
    await db.delete(seatBlocks).where(and(eq(seatBlocks.inventoryId, inventoryId), sql`${seatBlocks.seatId} = any(${sql.param([...seatIds])}::text[])`))
  }
  await db
    .update(inventories)
    .set({ seatsBlocked: sql`(select count(*)::int from ${seatBlocks} where ${seatBlocks.inventoryId} = ${inventoryId})`, updatedAt: sql`now()` })
    .where(eq(inventories.id, inventoryId))
}

/**
 * Tells every process at commit that the seller's catalogue shows something else (its cached
 * answers, seat maps included, are forgotten: catalogue-cache.ts), and, when seats were unblocked,
 * that the inventory sells more (sold-out memories forget it, its waiting list is nudged), as
 * sql/announce_catalogue_changed.sql and sql/announce_tickets_freed.sql do for the changes their
 * triggers see.
 */
export async function announceSeatsChanged(db: Db, inventory: { id: string; sellerId: string }, freed: boolean): Promise<void> {
  await db.execute(
    freed
      ? sql`select pg_notify('catalogue_changed', ${inventory.sellerId}), waiting_list_nudge(array[${inventory.id}]::uuid[]), pg_notify('tickets_freed', ${inventory.id})`
      : sql`select pg_notify('catalogue_changed', ${inventory.sellerId})`,
  )
}
