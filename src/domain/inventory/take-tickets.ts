import type { Db } from '../../platform/db/database.js'
import type { LastStatement } from '../../platform/db/transaction-ending-with.js'
import { AppError, type ErrorDetail } from '../../platform/errors.js'
import type { AvailabilityMemo } from './availability-memo.js'
import { availableOf, inScope, type EventScope } from './availability.js'
import { readInventoriesWithHeld, readTakenRows, refusedRows, takeTicketsQuery, type HeldInventoryState, type InventoryState } from './inventory.repo.js'

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
 * It locks every inventory involved (in id order), counts what other unexpired baskets hold, and
 * refuses the whole change unless each inventory has `capacity − sold − held ≥ wanted`.
 * Rechecking all of the basket's inventories, not only the changed ones, is what makes renewing
 * a hold safe: a hold that lapsed for a moment and was taken by someone else is not silently
 * revived. An inventory newly asked for that is another seller's, of a draft event or outside
 * the affiliate's events: 404 not_found, exactly like a missing one. One dated before the
 * seller's today, or of an event not on sale (cancelled, finished, unpublished since): 409
 * inventory_unavailable. With `prices` (and `variants`), a changed unit price (or variant) refuses with `PricesMoved`.
 *
 * With `memo`, what it read under the locks is remembered as the freshest reading there is:
 * refused, as it was; done, with this basket's tickets added to the held (or, with `sell`, to the
 * sold). Pass it only where this is the transaction's last statement: once it has answered, the
 * transaction commits.
 *
 * The database judged; `judge` below only says, from the rows it judged, what did not fit.
 */
export function takeTickets(
  options: HoldTicketsOptions & {
    basketId: string
    prices?: ReadonlyMap<string, number> | undefined
    /** The variants priced with, by inventory id (`variantsDigest` of the basket lines). */
    variants?: ReadonlyMap<string, string> | undefined
    sell: boolean
    memo?: AvailabilityMemo | undefined
  },
): LastStatement<Map<string, InventoryState>> {
  const { memo, sellerId } = options
  const startEpoch = memo?.epoch() ?? 0
  return {
    query: takeTicketsQuery({
      sellerId,
      basketId: options.basketId,
      quantities: options.wanted,
      scope: options.scope,
      prices: options.prices ?? null,
      variants: options.variants ?? null,
      sell: options.sell,
    }),
    // The database judged already, and the transaction may have committed: nothing to refuse here.
    read: (rows) => {
      const taken = readTakenRows(rows)
      const field = options.sell ? 'sold' : 'held'
      memo?.remember(
        sellerId,
        taken.map((row) => ({ ...row, [field]: row[field] + (options.wanted.get(row.id) ?? 0) })),
        startEpoch,
      )
      return new Map<string, InventoryState>(taken.map((row) => [row.id, row]))
    },
    explain: (error) => {
      const rows = refusedRows(error)
      if (!rows) return error
      memo?.remember(sellerId, rows, startEpoch)
      try {
        judge(options, rows)
      } catch (refusal) {
        return refusal
      }
      return new PricesMoved()
    },
  }
}

/**
 * The same judgement on committed data, without locks: refuses early what is already clearly
 * refused (availability only grows back by expiry or removal), so that under a rush the
 * refused requests never queue for the inventory locks. A pass proves nothing: `takeTickets`
 * must still run. One statement; it needs no transaction, and is best run before opening one.
 * With `memo`, and no basket excepted (a new basket), a trusted earlier reading answers instead
 * (see AvailabilityMemo), and every fresh reading is remembered.
 */
export async function precheckTickets(db: Db, options: HoldTicketsOptions, memo?: AvailabilityMemo): Promise<void> {
  const ids = [...options.wanted.keys()]
  const memoized = options.basketId === undefined ? memo : undefined
  // A remembered reading that refuses refuses; one that passes proves nothing, like a fresh one,
  // and the hold under the locks corrects it (takeTickets remembers what it found there).
  const remembered = memoized?.recall(options.sellerId, ids)
  if (remembered) {
    judge(options, remembered)
    return
  }
  const startEpoch = memoized?.epoch() ?? 0
  const rows = await readInventoriesWithHeld(db, options.sellerId, ids, options.basketId)
  memoized?.remember(options.sellerId, rows, startEpoch)
  judge(options, rows)
}

/**
/**
 * Which of a basket's inventories it could not hold (or buy) as it stands now: the judgement of
 * a hold, item by item, on committed data without locks, and without refusing. For a basket's
 * answer (BasketItem `available`); proves nothing for a change, which `takeTickets` decides.
 */
export async function unavailableInventories(
  db: Db,
  options: Pick<HoldTicketsOptions, 'sellerId' | 'scope' | 'wanted'> & { basketId: string },
): Promise<Set<string>> {
  const rows = await readInventoriesWithHeld(db, options.sellerId, [...options.wanted.keys()], options.basketId)
  const byId = new Map<string, HeldInventoryState>(rows.map((row) => [row.id, row]))
  return new Set([...options.wanted].filter(([id, wanted]) => leftFor(options.scope, byId.get(id)) < wanted).map(([id]) => id))
}

/** Seen by this caller: the seller's, not a draft's, within the affiliate's events. */
const visible = (scope: EventScope, row: HeldInventoryState | undefined): row is HeldInventoryState =>
  row !== undefined && row.eventStatus !== 'draft' && inScope(scope, row.eventId)

/** Still sold: its event published, and not dated before the seller's today. */
const onSale = (row: HeldInventoryState) => row.eventStatus === 'published' && !row.past

/** Tickets a basket may still take of an inventory: none when it is not on sale to the caller. */
const leftFor = (scope: EventScope, row: HeldInventoryState | undefined) => (visible(scope, row) && onSale(row) ? availableOf(row, Number(row.held)) : 0)

/**
 * What does not fit, from the rows a hold was judged on, in this order: 404 not_found naming each
 * inventory newly asked for that the caller cannot see (another seller's, a draft event's, outside
 * the affiliate's events); 409 inventory_unavailable naming the first that is no longer sold (dated
 * before the seller's today, or its event cancelled, finished or unpublished since); 409
 * insufficient_inventory naming each with too few tickets left.
 */
function judge(options: HoldTicketsOptions, rows: HeldInventoryState[]): Map<string, InventoryState> {
  const byId = new Map<string, HeldInventoryState>(rows.map((row) => [row.id, row]))
  const pathOf = (id: string, field: string) => {
    const at = options.added.get(id) ?? options.positions?.get(id)
    return at === undefined ? 'items' : `items.${at}.${field}`
  }
  const wanted = [...options.wanted].sort(([x], [y]) => (x < y ? -1 : 1))

  const missing: ErrorDetail[] = []
  for (const [id] of options.added) {
    if (!visible(options.scope, byId.get(id))) missing.push({ path: pathOf(id, 'inventory_id'), message: `no inventory ${id} on sale` })
  }
  if (missing.length > 0) throw new AppError('not_found', { message: 'An inventory in the request was not found', details: missing })

  for (const [id] of wanted) {
    const row = byId.get(id)
    if (visible(options.scope, row) && !onSale(row)) {
      throw new AppError('inventory_unavailable', {
        message: row.past ? `Inventory ${id} is dated ${row.date}, before today` : `Inventory ${id} is of an event that is not on sale`,
        details: { inventory_id: id },
      })
    }
  }

  const short: ErrorDetail[] = []
  for (const [id, quantity] of wanted) {
    const available = leftFor(options.scope, byId.get(id))
    if (available < quantity) short.push({ path: pathOf(id, 'quantity'), message: `${available} left of inventory ${id}` })
  }
  if (short.length > 0) throw new AppError('insufficient_inventory', { details: short })
  return byId
}
