import type { Db } from '../../platform/db/database.js'
import type { LastStatement } from '../../platform/db/transaction-ending-with.js'
import { AppError, type ErrorDetail } from '../../platform/errors.js'
import type { AvailabilityMemo } from './availability-memo.js'
import type { EventScope } from './availability.js'
import {
  groupCutAt,
  groupRefusalError,
  readStandings,
  readTakenRows,
  refusedStandings,
  takeTicketsQuery,
  type InventoryStanding,
  type RefusedStanding,
  takeTicketsGroupQuery,
  type GroupItem,
  type GroupRow,
  type SeatEntry,
  type TakeTickets,
  type TakenInventory,
} from './inventory.repo.js'

export type HoldTicketsOptions = {
  sellerId: string
  scope: EventScope
  /** The basket being changed: its own holds do not count against it. */
  basketId?: string
  /** Every quantity the basket will hold afterwards, by inventory id. */
  wanted: ReadonlyMap<string, number>
  /** Inventories newly asked for, with their position in the request: they must exist for this caller. */
  added: ReadonlyMap<string, number>
  /** Request positions of the other inventories asked for, to point at in an error. */
  positions?: ReadonlyMap<string, number>
  /** The seats of the items (reserved seating, take_tickets.sql); undefined: as the basket's items hold them. */
  seats?: readonly SeatEntry[] | undefined
}

/** A price changed after the caller priced with it: the caller prices again and retries. */
export class PricesMoved extends Error {}

/**
 * The one way tickets are held or sold: whether a basket may hold (or, with `sell`, buy) what it
 * wants is decided here, by one statement that refuses by itself (`take_tickets`,
 * sql/take_tickets.sql). End a transaction with it (`transactionEndingWith`, so the locks are released in the
 * COMMIT's round trip) or run it at once (`runStatement`); its locks then last until the
 * transaction ends, so the answer stays true until the change commits.
 *
 * It locks every inventory involved (in id order) and refuses the whole change unless each one
 * is on sale to the caller with the quantity wanted left besides what other unexpired baskets
 * hold (sql/inventory_standings.sql). Rechecking all of the basket's inventories, not only the
 * changed ones, is what makes renewing a hold safe: a hold that lapsed for a moment and was
 * taken by someone else is not silently revived. With `prices` (and `variants`), a changed unit
 * price (or variant) refuses with `PricesMoved`.
 *
 * With `memo`, how the inventories stand is remembered as the freshest reading there is: done, as
 * a new basket would now find them; refused, as they stood, when the caller may see all of the
 * seller's events (a refusal read for an affiliate may say 'hidden' only to it). Pass it only
 * where this is the transaction's last statement: once it has answered, the transaction commits.
 *
 * The database judged; `refusalOf` below only words its verdicts as the API's errors.
 */
export function takeTickets(options: TakeTicketsOptions): LastStatement<Map<string, TakenInventory>> {
  return { query: takeTicketsQuery(takeOf(options)), ...answerOf(options) }
}

/** How a take's rows are read and its refusal worded, alone or in a group; the memo's epoch is taken now, before the statement is sent. */
function answerOf(options: TakeTicketsOptions): Omit<LastStatement<Map<string, TakenInventory>>, 'query'> & { explain: (error: unknown) => unknown } {
  const { memo, sellerId } = options
  const startEpoch = memo?.epoch() ?? 0
  return {
    // The database judged already, and the transaction may have committed: nothing to refuse here.
    read: (rows) => {
      const taken = readTakenRows(rows)
      // As anyone who may see these events would now find them.
      memo?.remember(sellerId, taken, startEpoch)
      return new Map(taken.map((row) => [row.id, row]))
    },
    explain: (error) => {
      const standings = refusedStandings(error)
      if (!standings) return error
      if (options.scope === null) memo?.remember(sellerId, standings, startEpoch)
      return refusalOf(options, standings) ?? new PricesMoved()
    },
  }
}

export type TakeTicketsOptions = HoldTicketsOptions & {
  basketId: string
  prices?: ReadonlyMap<string, number> | undefined
  /** The variants priced with, by inventory id (`variantsDigest` of the basket lines). */
  variants?: ReadonlyMap<string, string> | undefined
  sell: boolean
  /** The basket is being opened by this transaction (`TakeTickets.opening`). */
  opening?: boolean | undefined
  memo?: AvailabilityMemo | undefined
}

const takeOf = (options: TakeTicketsOptions): TakeTickets => ({
  sellerId: options.sellerId,
  basketId: options.basketId,
  quantities: options.wanted,
  scope: options.scope,
  prices: options.prices ?? null,
  variants: options.variants ?? null,
  sell: options.sell,
  opening: options.opening,
  seats: options.seats,
})

/**
 * A take's answer in a group: what it took, or why it was refused (an API error, or
 * `PricesMoved`), or `deferred`: not attempted, the group's budget spent (a hold only), for the
 * caller to send in its next transaction.
 */
export type GroupOutcome = { taken: Map<string, TakenInventory> } | { refused: unknown } | { deferred: true }

/**
 * A group of sales stopped at its budget and rolled back whole (`takeTicketsGroup`): `at` is the
 * place, from 0, of the first take it did not attempt. The caller sends the takes before it as one
 * group and the rest as the next, in order.
 */
export class GroupCut extends Error {
  constructor(readonly at: number) {
    super(`a group of sales spent its budget before its take ${at}`)
  }
}

/**
 * A group of takes of one seller's inventories, in arrival order, as ONE statement that decides
 * each by take_tickets itself (sql/take_tickets_group.sql), to end a transaction with like
 * `takeTickets`: each take is answered exactly as `takeTickets` would answer it alone, after the
 * ones before it, through the same reading and the same words for a refusal. Holds (a new basket
 * each, `items` its items to write) are answered one by one: a refused one leaves nothing, not
 * even its basket. Sales are all or nothing: one refused raises its refusal, as alone.
 *
 * Bounded: once the statement has run `budgetMs` (from its start, as the statement timeout
 * counts), no further take is attempted; the first always is. Holds not attempted answer
 * `deferred` and leave nothing; sales raise `GroupCut`.
 */
export function takeTicketsGroup(
  takes: readonly (TakeTicketsOptions & { items?: readonly GroupItem[] | undefined })[],
  budgetMs: number,
): LastStatement<GroupOutcome[]> {
  const first = takes[0]!
  const answers = takes.map(answerOf)
  return {
    query: takeTicketsGroupQuery(
      first.sellerId,
      takes.map((take) => ({ ...takeOf(take), items: take.items })),
      first.sell,
      budgetMs,
    ),
    read: (rows) =>
      (rows as GroupRow[]).map((row): GroupOutcome => {
        if (row.deferred) return { deferred: true }
        const take = answers[row.n - 1]!
        return row.refusal === null ? { taken: take.read(row.taken!) } : { refused: take.explain(groupRefusalError(row.refusal)) }
      }),
    // A sale's refusal is take_tickets' own; each basket is then sold alone by its caller.
    explain: (error) => {
      const at = groupCutAt(error)
      return at === undefined ? error : new GroupCut(at)
    },
  }
}

/**
 * The same verdicts on committed data, without locks: refuses early what is already clearly
 * refused (availability only grows back by expiry or removal), so that under a rush the
 * refused requests never queue for the inventory locks. A pass proves nothing: `takeTickets`
 * must still run. One statement; it needs no transaction, and is best run before opening one.
 * With `memo`, for a new basket of a caller who may see all of the seller's events, a trusted
 * earlier reading answers instead (see AvailabilityMemo): the tickets it said were left, against
 * the quantities wanted. Every fresh reading for such a caller is remembered.
 */
export async function precheckTickets(db: Db, options: HoldTicketsOptions, memo?: AvailabilityMemo): Promise<void> {
  const memoized = memoFor(options, memo)
  if (recallRefusal(options, memoized)) return
  const startEpoch = memoized?.epoch() ?? 0
  const standings = await readHold(db, options)
  memoized?.remember(options.sellerId, standings, startEpoch)
  const refusal = refusalOf(options, standings)
  if (refusal) throw refusal
}

/** For a new basket: refuses what a trusted earlier reading refuses, without reading anything (see `precheckTickets`). */
export function refuseFromMemory(options: HoldTicketsOptions, memo: AvailabilityMemo | undefined): void {
  recallRefusal(options, memoFor(options, memo))
}

/** The memory answers only for a new basket of a caller who may see all of the seller's events: what it keeps was read for such a caller. */
const memoFor = (options: HoldTicketsOptions, memo: AvailabilityMemo | undefined) =>
  options.basketId === undefined && options.scope === null ? memo : undefined

/** How the inventories of a hold stand now, without locks, each against the quantity wanted (the basket's own holds aside). */
const readHold = (db: Db, options: Pick<HoldTicketsOptions, 'sellerId' | 'scope' | 'wanted' | 'basketId'>) =>
  readStandings(db, {
    sellerId: options.sellerId,
    inventoryIds: [...options.wanted.keys()],
    scope: options.scope,
    quantities: options.wanted,
    exceptBasketId: options.basketId,
  })

/**
 * Refuses what a trusted earlier reading refuses: the tickets it said were left, against the
 * quantities wanted. Answers whether one was remembered; one that passes proves nothing, like a
 * fresh one, and the hold under the locks corrects it (takeTickets remembers what it found there).
 */
function recallRefusal(options: HoldTicketsOptions, memo: AvailabilityMemo | undefined): boolean {
  const remembered = memo?.recall(options.sellerId, [...options.wanted.keys()])
  if (!remembered) return false
  const refusal = refusalOf(
    options,
    remembered.map((standing) => ({ ...standing, fits: standing.ticketsLeft >= options.wanted.get(standing.id)! })),
  )
  if (refusal) throw refusal
  return true
}

/**
 * Which of a basket's inventories it could not hold (or buy) as it stands now: the verdict of a
 * hold, item by item, on committed data without locks, and without refusing. For a basket's
 * answer (BasketItem `available`); proves nothing for a change, which `takeTickets` decides.
 */
export async function unavailableInventories(
  db: Db,
  options: Pick<HoldTicketsOptions, 'sellerId' | 'scope' | 'wanted'> & { basketId: string },
): Promise<Set<string>> {
  const standings = await readHold(db, options)
  const fitting = new Set(standings.filter((standing) => standing.fits).map((standing) => standing.id))
  return new Set([...options.wanted.keys()].filter((id) => !fitting.has(id)))
}

/**
 * The database's verdicts worded as the API's errors, in this order: 404 not_found naming each
 * inventory newly asked for that stands hidden to the caller (another seller's, a draft event's,
 * outside the affiliate's events: absent, or 'hidden'); 409 inventory_unavailable naming the first
 * that is no longer sold ('past', or 'not_on_sale': its event cancelled, finished or unpublished
 * since); 409 insufficient_inventory naming each whose quantity does not fit. Undefined when
 * everything fits.
 */
function refusalOf(options: HoldTicketsOptions, standings: readonly (InventoryStanding | RefusedStanding)[]): AppError | undefined {
  const byId = new Map(standings.map((standing) => [standing.id, standing]))
  const pathOf = (id: string, field: string) => {
    const at = options.added.get(id) ?? options.positions?.get(id)
    return at === undefined ? 'items' : `items.${at}.${field}`
  }
  const wanted = [...options.wanted.keys()].sort()

  const missing: ErrorDetail[] = []
  for (const [id] of options.added) {
    const standing = byId.get(id)?.standing
    if (standing === undefined || standing === 'hidden') missing.push({ path: pathOf(id, 'inventory_id'), message: `no inventory ${id} on sale` })
  }
  if (missing.length > 0) return new AppError('not_found', { message: 'An inventory in the request was not found', details: missing })

  const seatsOf = (id: string) => ('seats' in byId.get(id)! ? (byId.get(id) as RefusedStanding).seats : undefined) ?? undefined
  const badSeats: ErrorDetail[] = []
  for (const id of wanted) {
    const verdict = byId.has(id) ? seatsOf(id) : undefined
    if (verdict?.unseated) badSeats.push({ path: pathOf(id, 'seats'), message: `inventory ${id} sells no reserved seats` })
    if (verdict?.unknown?.length) badSeats.push({ path: pathOf(id, 'seats'), message: `not seats of inventory ${id}: ${verdict.unknown.join(', ')}` })
  }
  if (badSeats.length > 0) return new AppError('validation_error', { details: badSeats })

  for (const id of wanted) {
    const row = byId.get(id)
    if (row?.standing === 'past' || row?.standing === 'not_on_sale') {
      return new AppError('inventory_unavailable', {
        message: row.standing === 'past' ? `Inventory ${id} is dated ${row.date}, before today` : `Inventory ${id} is of an event that is not on sale`,
        details: { inventory_id: id },
      })
    }
  }

  const seatRefusal = (code: 'seat_unavailable' | 'seat_orphan', pick: (verdict: NonNullable<RefusedStanding['seats']>) => string[] | undefined) => {
    const seats = wanted.flatMap((id) => (byId.has(id) ? (pick(seatsOf(id) ?? {}) ?? []) : []))
    const inventoryId = wanted.find((id) => byId.has(id) && (pick(seatsOf(id) ?? {})?.length ?? 0) > 0)
    return seats.length > 0 ? new AppError(code, { details: { inventory_id: inventoryId, seats } }) : undefined
  }
  const unavailable = seatRefusal('seat_unavailable', (verdict) => verdict.unavailable)
  if (unavailable) return unavailable

  const short = wanted
    .filter((id) => byId.get(id)?.fits !== true)
    .map((id): ErrorDetail => ({ path: pathOf(id, 'quantity'), message: `${byId.get(id)?.ticketsLeft ?? 0} left of inventory ${id}` }))
  if (short.length > 0) return new AppError('insufficient_inventory', { details: short })

  const stranded = seatRefusal('seat_orphan', (verdict) => verdict.stranded)
  if (stranded) return stranded
  for (const id of wanted) {
    const verdict = byId.has(id) ? seatsOf(id) : undefined
    if (verdict?.maxTogether != null) {
      return new AppError('seats_not_together', {
        message: `No ${options.wanted.get(id)} adjacent seats are left of inventory ${id}`,
        details: { inventory_id: id, max_together: verdict.maxTogether },
      })
    }
  }
  return undefined
}
