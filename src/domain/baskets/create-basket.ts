import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { inOrder, runStatement, transactionEndingWith } from '../../platform/db/transaction-ending-with.js'
import { auditInsert, auditInsertsWhere, type AuditActor, type AuditEntry } from '../audit/record-audit.js'
import { runIdempotent, storedAnswer } from '../idempotency/run-idempotent.js'
import type { AvailabilityMemo } from '../inventory/availability-memo.js'
import type { SeatEntry, TakenInventory } from '../inventory/inventory.repo.js'
import type { HoldQueue, Settled } from '../inventory/hold-queue.js'
import { precheckTickets, refuseFromMemory, takeTickets, takeTicketsGroup, type HoldTicketsOptions } from '../inventory/take-tickets.js'
import type { InventoryVariant } from '../catalog/inventories.table.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { toBasketView, type BasketView } from './basket-view.js'
import { groupBasketsQuery, insertBasketQuery, toLines, upsertBasketItemsQuery } from './baskets.repo.js'
import { checkVariants, firstPositions, quantitiesByInventory } from './variants.js'

/**
 * An item asked for: an inventory, optionally one of its variants (by name), and a quantity; on a
 * seated inventory, the seats named (as many as the quantity), or none for the best available
 * (`together`, default true: adjacent or refused).
 */
export type BasketItemInput = {
  inventoryId: string
  variant?: string | null | undefined
  quantity: number
  seats?: readonly string[] | undefined
  together?: boolean | undefined
}

export type CreateBasketOptions = {
  sellerId: string
  ttlSeconds: number
  affiliate: AffiliateContext | null
  /** The customer of `X-Customer-Token`, when one was sent. */
  customerId: string | null
  /** Distinct (inventory, variant) pairs, quantities 1..20 (checked by the caller's schema). */
  items: readonly BasketItemInput[]
  idempotencyKey?: string | undefined
  actor: AuditActor
  /** Earlier readings of availability, to refuse a rush on a sold-out inventory without a round trip each. */
  availability?: AvailabilityMemo | undefined
  /** Turns for the holds of each inventory in this process (none: every hold goes at once). */
  holds?: HoldQueue | undefined
}

/**
 * Opens a basket holding every requested quantity until now + the seller's TTL, or nothing at
 * all (409 insufficient_inventory). With an idempotency key, a repeat replays the first answer.
 * Everything that does not need the inventory locks is done before taking them, so that the
 * locks of a sought-after inventory are held as briefly as possible.
 */
export async function createBasket(db: Db, options: CreateBasketOptions) {
  const { sellerId, affiliate, customerId, items } = options
  const hold = {
    sellerId,
    scope: affiliate?.eventIds ?? null,
    wanted: quantitiesByInventory(items),
    added: firstPositions(items),
    seats: seatEntries(items),
  }
  // Named seats are judged seat by seat under the locks (409 seat_unavailable lists them): no
  // refusal by counts before.
  const naming = items.some((item) => item.seats !== undefined)
  const guard = options.idempotencyKey
    ? {
        sellerId,
        key: options.idempotencyKey,
        request: [
          'POST /baskets',
          affiliate?.id ?? null,
          customerId,
          items.map((i) => [
            i.inventoryId,
            i.quantity,
            ...(i.variant == null && i.seats === undefined && i.together === undefined ? [] : [i.variant ?? null]),
            ...(i.seats === undefined && i.together === undefined ? [] : [i.seats ?? null, i.together ?? true]),
          ]),
        ],
      }
    : undefined
  // Keyed or not, the same route: a clear refusal costs one statement and no transaction (none at
  // all when the memory of readings answers, and then no turn either), so under a rush on a
  // sold-out inventory refused requests never queue for a connection behind the lock holders. A
  // keyed repeat refused here replays its first answer, which must not depend on what is left now.
  const refused = async (refusal: unknown) => {
    const replay = guard && (await storedAnswer<BasketView>(db, guard, 201))
    if (replay) return { body: replay, replayed: true }
    throw refusal
  }
  try {
    if (!naming) refuseFromMemory(hold, options.availability)
  } catch (refusal) {
    return refused(refusal)
  }
  const open = async () => {
    let variants: Awaited<ReturnType<typeof checkVariants>>
    try {
      if (!naming) await precheckTickets(db, hold, options.availability)
      variants = await checkVariants(db, sellerId, hold.scope, items)
    } catch (refusal) {
      return refused(refusal)
    }
    if (!guard) {
      const basketId = randomUUID()
      // The basket and its items leave with BEGIN; once they are answered, the hold is the last
      // statement, sent with the COMMIT: the locks last no longer than that round trip.
      const { result: opened, last: locked } = await transactionEndingWith(db, (tx) => ({
        result: openBasket(tx, basketId, options),
        last: takeTickets({ ...hold, basketId, sell: false, opening: true, memo: options.availability }),
      }))
      return { body: viewOf(opened, locked!, variants), replayed: false }
    }
    // With a key, the answer is stored before the transaction commits: the hold runs inside it, judged
    // under the locks like any other, and a concurrent repeat waits for the key and replays.
    const body = await db.transaction(async (tx) =>
      runIdempotent(tx, guard, 201, async (): Promise<BasketView> => {
        const opened = await openBasket(tx, randomUUID(), options)
        return viewOf(opened, await runStatement(tx, takeTickets({ ...hold, basketId: opened.basket.id, sell: false, opening: true })), variants)
      }),
    )
    return body
  }
  const { holds } = options
  if (!holds) return open()
  // A keyed request runs alone (its answer is stored in its own transaction); the others in groups.
  const opened = await (guard ? holds.inTurn(hold.wanted.keys(), open) : openInGroup(db, options, hold, naming, open))
  // Its checkout joins the group of these inventories.
  holds.held(opened.body.id, hold.wanted.keys())
  return opened
}

/** Joins the group of new baskets of these inventories (`holdTogether`), once the variants named are known to exist. */
async function openInGroup(db: Db, options: CreateBasketOptions, hold: HoldTicketsOptions, naming: boolean, open: GroupedHold['alone']) {
  const variants = await checkVariants(db, options.sellerId, hold.scope, options.items)
  const key = `hold ${options.sellerId} ${[...hold.wanted.keys()].sort().join(' ')}`
  const holds = options.holds!
  return holds.inGroup(
    key,
    hold.wanted.keys(),
    { options, hold, naming, variants, alone: open },
    (members, answer: (n: number, outcome: Settled<Opened>) => void) => holdTogether(db, holds.groupBudgetMs, members, answer),
  )
}

/** A new basket waiting for its turn in a group (`holdTogether`). */
type GroupedHold = {
  options: CreateBasketOptions
  hold: HoldTicketsOptions
  naming: boolean
  variants: ReadonlyMap<string, InventoryVariant[]>
  /** The same request, opened alone. */
  alone: () => Promise<Opened>
}

/**
 * New baskets of the same inventories, opened together in ONE transaction (docs/selling.md holds,
 * issue: group commit): their baskets are written, then one statement decides every hold in
 * arrival order, each by take_tickets exactly as alone (`takeTicketsGroup`), and writes the items
 * of those that fit; a refused one leaves nothing and gets its own refusal. The audit entries of
 * those kept and what a basket's answer needs are read in the same round trip, before the COMMIT.
 * Those that the memory of readings refuses now (a group before them sold out) are refused
 * without being sent.
 *
 * Bounded (issue 45): the statement attempts no further hold once it has run the queue's
 * `groupBudgetMs`; those it put off left nothing and go, in the same order, in the next
 * transaction of this turn, until every member is answered. Each member is answered as soon as
 * its own outcome is known: those of a transaction at its COMMIT, while the ones put off go on.
 * Should a transaction fail as a whole (a failure no single hold explains), each basket not yet
 * answered is opened alone, in order, and answered as soon as it is, so that every buyer gets
 * exactly its own answer, the first without waiting for the last.
 */
async function holdTogether(db: Db, budgetMs: number, members: GroupedHold[], answer: (n: number, outcome: Settled<Opened>) => void): Promise<void> {
  let going: number[] = []
  members.forEach((member, n) => {
    try {
      if (!member.naming) refuseFromMemory(member.hold, member.options.availability)
      going.push(n)
    } catch (error) {
      answer(n, { error })
    }
  })
  // Those put off are not judged by the memory again: it read the inventories before the holds
  // ahead of them were decided. The database decides them after those, as alone.
  while (going.length > 0) {
    // A group of one is an ordinary hold.
    if (going.length <= 1) return openEach(members, going, answer)
    let held: Awaited<ReturnType<typeof holdOnce>>
    try {
      held = await holdOnce(
        db,
        budgetMs,
        going.map((n) => members[n]!),
      )
    } catch {
      // Nothing of this transaction committed.
      return openEach(members, going, answer)
    }
    // Committed: those it decided are answered and never opened again; those it put off left nothing.
    const sent = going
    going = []
    for (const [k, outcome] of held.outcomes.entries()) {
      if ('deferred' in outcome) going.push(sent[k]!)
      else answer(sent[k]!, 'refused' in outcome ? { error: outcome.refused } : { value: held.opened(k, outcome.taken) })
    }
  }
}

type Opened = { body: BasketView; replayed: boolean }

/**
 * One transaction of a group of holds (`holdTogether`): each hold's outcome in order, and how a
 * basket kept answers (by its place here).
 */
async function holdOnce(db: Db, budgetMs: number, members: GroupedHold[]) {
  const sent = members.map((member) => ({ ...member, basketId: randomUUID() }))
  const basketIds = sent.map((one) => one.basketId)
  const ended = await transactionEndingWith(db, (tx) => ({
    result: undefined,
    alongside: sent.map(({ options, basketId }) =>
      insertBasketQuery(tx, {
        id: basketId,
        sellerId: options.sellerId,
        affiliateId: options.affiliate?.id ?? null,
        customerId: options.customerId,
        ttlSeconds: options.ttlSeconds,
      }),
    ),
    last: takeTicketsGroup(
      sent.map(({ hold, options, basketId }) => ({
        ...hold,
        basketId,
        sell: false,
        opening: true,
        memo: options.availability,
        items: options.items.map((item, position) => ({ inventoryId: item.inventoryId, variant: item.variant ?? null, quantity: item.quantity, position })),
      })),
      budgetMs,
    ),
    after: [
      auditInsertsWhere(
        tx,
        sent.map(({ options, basketId }) => ({ actor: options.actor, entry: createdEntry(basketId, options) })),
        sql`exists (select 1 from baskets b where b.id = e."targetId")`,
      ),
      groupBasketsQuery(tx, basketIds),
    ],
  }))
  const kept = ended.after[1] as Awaited<ReturnType<ReturnType<typeof groupBasketsQuery>['execute']>>
  const opened = (k: number, taken: ReadonlyMap<string, TakenInventory>): Opened => {
    const { options, variants, basketId } = sent[k]!
    const { basket, items } = kept.get(basketId)!
    return { body: viewOf({ basket, rows: items, affiliateCode: options.affiliate?.code ?? null }, taken, variants), replayed: false }
  }
  return { outcomes: ended.last!, opened }
}

/** Opens each of these members' baskets alone, in order, answering each as soon as it is. */
async function openEach(members: GroupedHold[], going: number[], answer: (n: number, outcome: Settled<Opened>) => void) {
  for (const n of going) {
    try {
      answer(n, { value: await members[n]!.alone() })
    } catch (error) {
      answer(n, { error })
    }
  }
}

/**
 * The basket, its audit entry and its items, sent together (the basket's id is made by the caller).
 * The items are written before the inventories are locked (the locks exclude other holds, not
 * rows that merely refer to the inventories), then judged under the locks: if they do not fit,
 * the transaction rolls back with them.
 */
async function openBasket(tx: Db, basketId: string, options: CreateBasketOptions) {
  const { sellerId, affiliate, customerId, items } = options
  const [basket, , rows] = await inOrder(
    tx,
    insertBasketQuery(tx, { id: basketId, sellerId, affiliateId: affiliate?.id ?? null, customerId, ttlSeconds: options.ttlSeconds }),
    auditInsert(tx, options.actor, createdEntry(basketId, options)),
    upsertBasketItemsQuery(
      tx,
      items.map((i, position) => ({ basketId, inventoryId: i.inventoryId, variant: i.variant ?? null, quantity: i.quantity, position })),
    ),
  )
  return { basket, rows, affiliateCode: affiliate?.code ?? null }
}

/** The audit entry of a basket opened. */
const createdEntry = (basketId: string, options: CreateBasketOptions): AuditEntry => ({
  action: 'stf.basket.created',
  target: { type: 'basket', id: basketId },
  sellerId: options.sellerId,
  data: { items: auditedItems(options.items), affiliate_id: options.affiliate?.id ?? null },
})

/** The items of a basket opened or changed, as its audit entry records them (the seats where named). */
export const auditedItems = (items: readonly BasketItemInput[]) =>
  items.map((i) => ({ inventory_id: i.inventoryId, variant: i.variant ?? null, quantity: i.quantity, ...(i.seats ? { seats: i.seats } : {}) }))

/** The seats each item asks for (ignored for an unseated inventory unless it names some: then refused). */
export const seatEntries = (items: readonly BasketItemInput[]): SeatEntry[] =>
  items.map((item) => ({
    inventoryId: item.inventoryId,
    variant: item.variant ?? null,
    quantity: item.quantity,
    seats: item.seats ?? null,
    together: item.together ?? true,
    keep: false,
  }))

const viewOf = (
  opened: Awaited<ReturnType<typeof openBasket>>,
  locked: ReadonlyMap<string, TakenInventory>,
  variants: ReadonlyMap<string, InventoryVariant[]>,
): BasketView =>
  toBasketView(
    { ...opened.basket, affiliateCode: opened.affiliateCode, expired: false, now: opened.basket.createdAt },
    { lines: toLines(opened.rows, locked, variants), coupons: new Map(), customerUses: undefined },
  )
