import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { errorDetail, sqlState } from '../../platform/db/errors.js'
import { executeStatement, type FixedStatement } from '../../platform/db/fixed-statement.js'
import { inventories } from '../catalog/inventories.table.js'
import type { EventScope } from './availability.js'

// The SQL of ticket availability: how inventories stand for a sale (sql/inventory_standings.sql,
// the one sale rule) read with or without their locks, and the statements that lock, hold, sell
// and release tickets. Nothing else writes `sold`.

/** How an inventory stands for a caller, in the database's words (sql/sale_standing.sql). */
export type Standing = 'hidden' | 'past' | 'not_on_sale' | 'sold_out' | 'on_sale'

/** What the sale rule answered of one inventory, for one caller. */
export type InventoryStanding = {
  id: string
  date: string
  standing: Standing
  /** Tickets it still sells to the caller: 0 unless on sale. */
  ticketsLeft: number
  /** Whether the quantity asked fits; null when none was asked. */
  fits: boolean | null
  /** Milliseconds until the first hold on it runs out (null: none): until then `ticketsLeft` cannot grow by itself. */
  firstReleaseMs: number | null
}

type StandingRecord = { id: string; date: string; standing: Standing; tickets_left: number; fits: boolean | null; first_release_ms: number | null }

const fromStandingRecord = (row: StandingRecord): InventoryStanding => ({
  id: row.id,
  date: row.date,
  standing: row.standing,
  ticketsLeft: Number(row.tickets_left),
  fits: row.fits,
  firstReleaseMs: row.first_release_ms === null ? null : Number(row.first_release_ms),
})

export type StandingsQuery = {
  sellerId: string
  inventoryIds: readonly string[]
  /** The caller's events (null: all of the seller's): others stand 'hidden'. */
  scope: EventScope
  /** The quantities asked, by inventory id: each row then says whether its quantity fits. */
  quantities?: ReadonlyMap<string, number> | undefined
  /** A basket whose own holds do not count against it. */
  exceptBasketId?: string | undefined
}

/**
 * How a seller's inventories stand as committed now, without locks: one prepared statement of
 * `inventory_standings`, the reading `take_tickets` makes under the locks. It runs on every basket
 * change and on every refusal of a rush. Other sellers' ids are absent.
 */
export async function readStandings(db: Db, query: StandingsQuery): Promise<InventoryStanding[]> {
  const ids = [...query.inventoryIds]
  if (ids.length === 0) return []
  const { quantities } = query
  const { rows } = await executeStatement<StandingRecord>(
    db,
    {
      sql: 'select id, date, standing, tickets_left, fits, first_release_ms from inventory_standings($1::uuid, $2::uuid[], $3::int[], $4::uuid, $5::uuid[], true)',
      params: [
        query.sellerId,
        ids,
        quantities ? ids.map((id) => quantities.get(id) ?? null) : null,
        query.exceptBasketId ?? null,
        query.scope === null ? null : [...query.scope],
      ],
    },
    'read_inventory_standings',
  )
  return rows.map(fromStandingRecord)
}

/** What a sale needs of an inventory it took tickets of: where and what it is, at which price. */
export type InventoryState = { id: string; eventId: string; date: string; name: string; price: number }

/** A seat as a buyer sees it (docs/seating.md Seat): `id` is the plan's seat_guid. */
export type Seat = { id: string; zone: string; row: string; number: string; category: string }

/** The seats of a hold on a seated inventory, by item: its variant (null: none) and its seat ids. */
export type ItemSeats = { variant: string | null; seats: Seat[] }

/** An inventory `take_tickets` took tickets of, standing as a new basket would now find it; `seats`: what each item of a seated one holds (null: unseated). */
export type TakenInventory = InventoryState & Omit<InventoryStanding, 'fits'> & { seats: ItemSeats[] | null }

type TakenRecord = {
  id: string
  event_id: string
  date: string
  name: string
  price: number
  standing: Standing
  tickets_left: number
  first_release_ms: number | null
  seats: { v: string | null; s: Seat[] }[] | null
}

/**
 * One item's seats in a hold on a seated inventory (take_tickets.sql, p_seats): named (`seats`),
 * kept (`keep`: seats it holds already, checked again), or `quantity` best available (`seats`
 * null; `together` false: anywhere when no block is left). Entries of unseated inventories are
 * ignored, unless they name seats (then refused).
 */
export type SeatEntry = { inventoryId: string; variant: string | null; quantity: number; seats: readonly string[] | null; together: boolean; keep: boolean }

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
  /** Add the quantities to `sold` (a checkout), or only hold them. */
  sell: boolean
  /** The basket is being opened by this transaction: its items are the request, not holdings it keeps while buyers queue. */
  opening?: boolean | undefined
  /** The seats of each item (SeatEntry); undefined: the basket's stored items, their seats kept (or picked anywhere where it has none). */
  seats?: readonly SeatEntry[] | undefined
}

/**
 * The hold or the sale, decided under the inventory locks by the database function
 * `take_tickets` (sql/take_tickets.sql), which answers the inventories taken, or raises (SQLSTATE
 * BX409, see `refusedStandings`) and changes nothing when anything does not fit. ONE statement
 * that refuses by itself: it can end a transaction in the COMMIT's own round trip.
 */
export const takeTicketsQuery = (take: TakeTickets): FixedStatement => {
  const ids = [...take.quantities.keys()]
  return {
    sql: 'select * from take_tickets($1::uuid, $2::uuid[], $3::int[], $4::uuid, $5::uuid[], $6::int[], $7::text[], $8, $9, $10::jsonb)',
    params: [
      take.sellerId,
      ids,
      ids.map((id) => take.quantities.get(id)!),
      take.basketId ?? null,
      take.scope === null ? null : [...take.scope],
      take.prices === null ? null : ids.map((id) => take.prices!.get(id) ?? null),
      take.variants ? ids.map((id) => take.variants!.get(id) ?? null) : null,
      take.sell,
      take.opening ?? false,
      take.seats === undefined ? null : JSON.stringify(seatsJson(take.seats)),
    ],
  }
}

/** The seat entries as take_tickets reads them (p_seats). */
const seatsJson = (seats: readonly SeatEntry[]) =>
  seats.map((entry) => ({ i: entry.inventoryId, v: entry.variant, q: entry.quantity, s: entry.seats, t: entry.together, k: entry.keep }))

/** A new basket's item, written by a grouped hold just before its take (take_tickets_group.sql). */
export type GroupItem = { inventoryId: string; variant: string | null; quantity: number; position: number }

/** One take of a group: take_tickets' arguments and, for a new basket's hold, its items to write first. */
export type GroupTake = TakeTickets & { items?: readonly GroupItem[] | undefined }

/**
 * A group of takes of one seller's inventories, in arrival order, decided by the database function
 * `take_tickets_group` (sql/take_tickets_group.sql) in ONE statement, each take by take_tickets
 * itself, attempting no further take once the statement has run `budgetMs`. Holds answer a verdict
 * per take (or `deferred`); sales (`sell`) are all or nothing (see `groupCutAt`). Every take must
 * have the group's `sell`.
 */
export const takeTicketsGroupQuery = (sellerId: string, takes: readonly GroupTake[], sell: boolean, budgetMs: number): FixedStatement => ({
  sql: 'select n, taken, refusal, deferred from take_tickets_group($1::uuid, $2::jsonb, $3, $4::int)',
  params: [
    sellerId,
    JSON.stringify(
      takes.map((take) => {
        const ids = [...take.quantities.keys()]
        return {
          b: take.basketId,
          ids,
          q: ids.map((id) => take.quantities.get(id)!),
          scope: take.scope === null ? null : [...take.scope],
          prices: take.prices === null ? null : ids.map((id) => take.prices!.get(id) ?? null),
          variants: take.variants ? ids.map((id) => take.variants!.get(id) ?? null) : null,
          opening: take.opening ?? false,
          seats: take.seats === undefined ? null : seatsJson(take.seats),
          items: take.items?.map((item) => ({ i: item.inventoryId, v: item.variant, q: item.quantity, p: item.position })) ?? [],
        }
      }),
    ),
    sell,
    budgetMs,
  ],
})

/** One row of `take_tickets_group`: a take's rows, or its refusal (take_tickets' BX409 DETAIL), or `deferred`: not attempted, its budget spent. */
export type GroupRow = { n: number; taken: Record<string, unknown>[] | null; refusal: string | null; deferred: boolean }

/**
 * Where a group of sales stopped, its budget spent (SQLSTATE BX504): the place in the group, from
 * 0, of the first take not attempted; the whole group rolled back. Undefined for any other error.
 */
export function groupCutAt(error: unknown): number | undefined {
  if (sqlState(error) !== GROUP_BUDGET_SPENT) return undefined
  const place = Number(errorDetail(error))
  return Number.isInteger(place) && place > 1 ? place - 1 : undefined
}

const GROUP_BUDGET_SPENT = 'BX504'

/** A refusal of a grouped take, as the error take_tickets raised (what `refusedStandings` reads). */
export const groupRefusalError = (detail: string) => Object.assign(new Error('the tickets asked for do not fit'), { code: TICKETS_DO_NOT_FIT, detail })

export const readTakenRows = (rows: Record<string, unknown>[]): TakenInventory[] =>
  (rows as TakenRecord[]).map((row) => ({
    id: row.id,
    eventId: row.event_id,
    date: row.date,
    name: row.name,
    price: Number(row.price),
    standing: row.standing,
    ticketsLeft: Number(row.tickets_left),
    firstReleaseMs: row.first_release_ms === null ? null : Number(row.first_release_ms),
    seats: row.seats === null ? null : row.seats.map((item) => ({ variant: item.v, seats: item.s })),
  }))

/**
 * Why the seats of a seated inventory were refused (take_tickets.sql): named seats that are not
 * the inventory's, taken (held, sold or blocked), or that would strand others; the largest block
 * left when best available found none together.
 */
export type SeatVerdict = { unknown?: string[]; unavailable?: string[]; stranded?: string[]; maxTogether?: number | null; unseated?: boolean }

/** How each inventory stood when `take_tickets` refused; `moved`: its price or variants changed since the caller priced; `seats`: why its seats did not fit. */
export type RefusedStanding = InventoryStanding & { moved: boolean; seats?: SeatVerdict | null }

/** How each inventory stood when `take_tickets` refused, from its error; undefined for any other error. */
export function refusedStandings(error: unknown): RefusedStanding[] | undefined {
  if (sqlState(error) !== TICKETS_DO_NOT_FIT) return undefined
  const detail = errorDetail(error)
  return detail === undefined ? undefined : (JSON.parse(detail) as RefusedStanding[])
}

const TICKETS_DO_NOT_FIT = 'BX409'

/**
 * Locks a seller's inventory rows, in id order, the order `take_tickets` locks them in, so that
 * two transactions wanting the same rows queue instead of deadlocking. NO KEY UPDATE, like
 * `take_tickets`: it excludes every other hold and sale of these rows, yet lets rows that merely
 * reference them (order items, tickets, basket items) be written meanwhile.
 */
export async function lockInventories(db: Db, sellerId: string, inventoryIds: readonly string[]): Promise<void> {
  if (inventoryIds.length === 0) return
  await db
    .select({ id: inventories.id })
    .from(inventories)
    .where(and(inArray(inventories.id, [...inventoryIds]), eq(inventories.sellerId, sellerId)))
    .orderBy(asc(inventories.id))
    .for('no key update')
}

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
