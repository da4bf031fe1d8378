import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { errorDetail, sqlState } from '../../platform/db/errors.js'
import { events } from '../catalog/events.table.js'
import { inventories } from '../catalog/inventories.table.js'
import type { EventScope } from './availability.js'
import { firstReleaseSql, heldSql } from './held.js'
import { pastSql } from './past.js'
import type { FixedStatement } from '../../platform/db/fixed-statement.js'
import { preparedOn } from '../../platform/db/prepared.js'

// The SQL of ticket availability: an inventory's state read with what is held on it, and the
// statements that lock, hold, sell and release its tickets. Nothing else writes `sold`.

export type InventoryState = {
  id: string
  eventId: string
  date: string
  name: string
  capacity: number
  sold: number
  price: number
  eventStatus: string
  /** Dated before the seller's today (`seller_today`, sellers/sql/seller_today.sql): no longer held or sold. */
  past: boolean
}

const inventoryState = {
  id: inventories.id,
  eventId: inventories.eventId,
  date: inventories.date,
  name: inventories.name,
  capacity: inventories.capacity,
  sold: inventories.sold,
  price: inventories.price,
  eventStatus: events.status,
  past: pastSql,
}

const inventoriesOf = (db: Db, sellerId: string, inventoryIds: readonly string[]) =>
  db
    .select(inventoryState)
    .from(inventories)
    .innerJoin(events, eq(events.id, inventories.eventId))
    .where(and(inArray(inventories.id, [...inventoryIds]), eq(inventories.sellerId, sellerId)))
    .orderBy(asc(inventories.id))

/** An inventory's state with the tickets other baskets hold on it, as a hold is judged. */
export type HeldInventoryState = InventoryState & { held: number }

/** `HeldInventoryState` read without locks, with the milliseconds until the first hold it counts runs out (null: none). */
export type HeldInventoryReading = HeldInventoryState & { firstReleaseMs: number | null }

const prepareReadWithHeld = (db: Db) =>
  db
    .select({
      ...inventoryState,
      held: heldSql(sql`${inventories.id}`, sql`${sql.placeholder('exceptBasketId')}`),
      firstReleaseMs: firstReleaseSql(sql`${inventories.id}`),
    })
    .from(inventories)
    .innerJoin(events, eq(events.id, inventories.eventId))
    .where(and(sql`${inventories.id} = any(${sql.placeholder('ids')}::uuid[])`, eq(inventories.sellerId, sql.placeholder('sellerId'))))
    .prepare('read_inventories_with_held')

const READ_WITH_HELD = Symbol('read inventories with held')

/**
 * A seller's inventory rows as committed now, without locking, each with the tickets held by
 * open baskets other than `exceptBasketId`: one prepared statement, built once per database
 * handle (it runs on every basket change, and on every refusal of a rush). Other sellers' ids
 * are absent. `firstReleaseMs` counts every basket's holds, whatever `exceptBasketId` is.
 */
export async function readInventoriesWithHeld(
  db: Db,
  sellerId: string,
  inventoryIds: readonly string[],
  exceptBasketId?: string,
): Promise<HeldInventoryReading[]> {
  if (inventoryIds.length === 0) return []
  return preparedOn(db, READ_WITH_HELD, prepareReadWithHeld).execute({ ids: [...inventoryIds], sellerId, exceptBasketId: exceptBasketId ?? null })
}

type LockedRecord = {
  id: string
  event_id: string
  date: string
  name: string
  capacity: number
  sold: number
  price: number
  event_status: string
  held: number
  past: boolean
  /** Only in `take_tickets`' rows. */
  first_release_ms?: number | null
}

export type TakeTickets = {
  sellerId: string
  /** The basket the tickets are for: its own holds do not count against it. */
  basketId: string
  /** Tickets wanted, by inventory id. */
  quantities: ReadonlyMap<string, number>
  /** Events the caller may sell (null: all of the seller's). */
  scope: EventScope
  /** The unit prices the caller priced with, by inventory id: a changed one refuses. Null: any. */
  prices: ReadonlyMap<string, number> | null
  /** The variants the caller priced with (md5 of their jsonb text), by inventory id: changed ones refuse. Null, or absent for an id: any. */
  variants?: ReadonlyMap<string, string> | null | undefined
  /** Add the quantities to `sold` (a checkout), or only judge them (a hold). */
  sell: boolean
}

/**
 * The hold or the sale, decided under the inventory locks by the database function
 * `take_tickets` (sql/take_tickets.sql), which answers the rows as they were before a sale, or raises (SQLSTATE BX409, see
 * `refusedRows`) and changes nothing when anything does not fit. ONE statement that refuses by
 * itself: it can end a transaction in the COMMIT's own round trip.
 */
export const takeTicketsQuery = (take: TakeTickets): FixedStatement => {
  const ids = [...take.quantities.keys()]
  return {
    sql: 'select * from take_tickets($1::uuid, $2::uuid[], $3::int[], $4::uuid, $5::uuid[], $6::int[], $7::text[], $8)',
    params: [
      take.sellerId,
      ids,
      ids.map((id) => take.quantities.get(id)!),
      take.basketId ?? null,
      take.scope === null ? null : [...take.scope],
      take.prices === null ? null : ids.map((id) => take.prices!.get(id) ?? null),
      take.variants ? ids.map((id) => take.variants!.get(id) ?? null) : null,
      take.sell,
    ],
  }
}

export const readTakenRows = (rows: Record<string, unknown>[]): HeldInventoryReading[] =>
  rows.map((row) => ({ ...fromLockedRecord(row as LockedRecord), firstReleaseMs: (row as LockedRecord).first_release_ms ?? null }))

/** The rows a refused `take_tickets` judged, from its error; undefined for any other error. */
export function refusedRows(error: unknown): HeldInventoryReading[] | undefined {
  if (sqlState(error) !== TICKETS_DO_NOT_FIT) return undefined
  const detail = errorDetail(error)
  return detail === undefined ? undefined : (JSON.parse(detail) as HeldInventoryReading[])
}

const TICKETS_DO_NOT_FIT = 'BX409'

const fromLockedRecord = (row: LockedRecord): HeldInventoryState => ({
  id: row.id,
  eventId: row.event_id,
  date: row.date,
  name: row.name,
  capacity: Number(row.capacity),
  sold: Number(row.sold),
  price: Number(row.price),
  eventStatus: row.event_status,
  held: Number(row.held),
  past: row.past === true,
})

/**
 * Locks a seller's inventory rows, in id order so that two transactions wanting the same rows
 * queue instead of deadlocking. Other sellers' ids are absent from the answer. NO KEY UPDATE,
 * like sql/lock_inventories_with_held.sql: it excludes every other hold and sale of
 * these rows, yet lets rows that merely reference them (order items, tickets, basket items) be
 * written meanwhile, as checkouts and new baskets do before they lock.
 */
export const lockInventories = async (db: Db, sellerId: string, inventoryIds: readonly string[]): Promise<InventoryState[]> =>
  inventoryIds.length === 0 ? [] : inventoriesOf(db, sellerId, inventoryIds).for('no key update', { of: inventories })

/**
 * Takes sold tickets back (a cancellation): `sold` goes down by each quantity, in one statement.
 * Lock the rows first (`lockInventories`), in the same transaction.
 */
export async function unsell(db: Db, quantities: ReadonlyMap<string, number>): Promise<void> {
  const ids = [...quantities.keys()]
  if (ids.length === 0) return
  await db.execute(sql`
    update inventories as inv set sold = inv.sold - w.quantity, updated_at = now()
      from unnest(${sql.param(ids)}::uuid[], ${sql.param(ids.map((id) => quantities.get(id)!))}::int[]) as w(inventory_id, quantity)
     where inv.id = w.inventory_id`)
}
