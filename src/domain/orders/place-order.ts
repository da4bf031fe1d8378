import { errorDetail, isUniqueViolation } from '../../platform/db/errors.js'
import { randomUUID } from 'node:crypto'
import { and, eq, isNull, or, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { findActiveKeyRow, setTicketsKey } from '../checkin/ticket-keys.repo.js'
import { inOrder, pipelines, runStatement, sqlStatement, transactionEndingWith, type Executable } from '../../platform/db/transaction-ending-with.js'
import { AppError } from '../../platform/errors.js'
import { auditInsert, type AuditActor } from '../audit/record-audit.js'
import { assertBasketAccess, assertBasketOpen } from '../baskets/basket-access.js'
import { couponView, loadBasketContents, priceContents, toBasketView, type BasketContents } from '../baskets/basket-view.js'
import {
  basketLinesQuery,
  basketLocked,
  checkOutBasketQuery,
  lockBasketQuery,
  withUnitPrice,
  type BasketLine,
  type BasketState,
} from '../baskets/baskets.repo.js'
import type { BasketPrice } from '../baskets/price-basket.js'
import { installmentPlans, isPaymentMethod, type InstallmentPlan, type InstallmentSettings, type PaymentMethod } from '../baskets/installment-plans.js'
import { quantitiesByInventory } from '../baskets/variants.js'
import { coupons } from '../coupons/coupons.table.js'
import { runIdempotent } from '../idempotency/run-idempotent.js'
import type { InventoryState } from '../inventory/inventory.repo.js'
import type { HoldQueue, Settled } from '../inventory/hold-queue.js'
import { basketInventoryIds } from '../baskets/baskets.repo.js'
import { GroupCut, PricesMoved, takeTickets, takeTicketsGroup, type TakeTicketsOptions } from '../inventory/take-tickets.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { orderEvent, webhookEventsStatement } from '../webhooks/webhook-events.js'
import { signOrderView, toOrderView, type OrderView } from './order-view.js'
import { insertOrderQueries, itemShowsQuery, type TicketRow } from './orders.repo.js'
import { couponRedemptions } from './orders.table.js'
import { newTicketIdentifier } from './ticket-identifier.js'
import { DEFAULT_SETTINGS, type PaymentMinutes } from '../sellers/seller-settings.js'
import { insertLedgerRows, paymentRows, saleRows } from '../payments/ledger.js'
import { insertPaymentQuery } from '../payments/payments.repo.js'
import { enqueueEmail, type EmailMessage } from '../../platform/mail/outbox.repo.js'
import { orderConfirmedEmail, orderEmailContexts, orderLinkOf, orderPendingEmail, type OrderEmailContext } from './order-emails.js'
import type { OrderToken } from './order-tokens.js'
import { placedStatus } from './order-states.js'

export type Buyer = { email: string; name: string }

export type PlaceOrderOptions = {
  /** Signs the tickets' codes of the order answered (and of its webhook events). */
  codes: TicketCodes
  sellerId: string
  affiliate: AffiliateContext | null
  basketId: string
  /** The customer of `X-Customer-Token`: the order's owner; null: a guest's order (docs/selling.md). */
  customerId: string | null
  /** A guest's email and name (required without `customerId`); a customer's order copies the account's. The order's emails go to the buyer. */
  buyer?: Buyer | undefined
  /** A guest's order token (docs/selling.md): its hash is stored, the token goes into the buyer's email link. */
  orderToken?: OrderToken | undefined
  settings: InstallmentSettings
  paymentMethod: string
  /** Number of installments, one of the plans for the method (default 1). */
  installments?: number | undefined
  /** The partner's payment capture reference. */
  paymentReference?: string | null | undefined
  /** The order awaits payment (docs/payments.md): `pending` until `payment_due_at`, `payment_minutes` of its method from now. */
  awaitPayment?: boolean | undefined
  /** The seller's `payment_minutes` (default: the defaults). */
  paymentMinutes?: PaymentMinutes | undefined
  /** What the partner charged (interest included): a total computed otherwise refuses with 409 price_changed. */
  expectedTotal?: number | undefined
  idempotencyKey?: string | undefined
  actor: AuditActor
  /** Turns for the sales of each inventory in this process, taken by checkouts in groups (none: every checkout goes at once). */
  holds?: HoldQueue | undefined
}

/** The checkout's money, decided from one reading of the inventories and coupons. */
type Pricing = {
  lines: BasketLine[]
  contents: BasketContents
  price: BasketPrice
  plan: InstallmentPlan | undefined
  /** Why this reading refuses the checkout, or null. */
  refusal: AppError | null
}

function evaluate(basket: BasketState, contents: BasketContents, options: PlaceOrderOptions): Pricing {
  const price = priceContents(basket, contents)
  const plan = installmentPlans(price.total, options.paymentMethod, options.settings).find((p) => p.installments === (options.installments ?? 1))
  return { lines: contents.lines, contents, price, plan, refusal: refusalOf(basket, contents, price, plan, options) }
}

/**
 * Why this pricing may not be sold, in the order a buyer would want to hear it: a coupon that
 * gives nothing (the code the basket's answer shows as its `reason`), a plan not offered, a
 * total other than the one the partner charged.
 */
function refusalOf(basket: BasketState, contents: BasketContents, price: BasketPrice, plan: InstallmentPlan | undefined, options: PlaceOrderOptions) {
  const problem = price.couponProblem ?? price.lines.find((line) => line.couponProblem)?.couponProblem
  if (problem) return new AppError(problem)
  if (!plan)
    return new AppError('validation_error', { details: [{ path: 'installments', message: 'no such installment plan for this payment method and total' }] })
  if (options.expectedTotal !== undefined && options.expectedTotal !== plan.total) {
    // Judged under the locks, the sale having fit: every item is available.
    const view = toBasketView(basket, contents, { price })
    return new AppError('price_changed', { details: { expected_total: options.expectedTotal, total: plan.total, basket: view } })
  }
  return null
}

/** Everything an order records from its pricing; two readings that agree on it sell the same thing. */
const fingerprintOf = (pricing: Pricing) =>
  JSON.stringify([
    pricing.lines.map((line) => [line.inventoryId, line.variant, line.quantity, line.unitPrice, line.couponId]),
    pricing.price,
    pricing.plan,
    [...pricing.contents.coupons.values()].map((coupon) => [coupon.id, couponView(coupon)]).sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)),
  ])

const MAX_ATTEMPTS = 3

/**
 * Checks a basket out (docs/selling.md): its holds become sales, its coupons are redeemed within
 * their limits, and one ticket is issued per unit, all in one transaction, so that nothing is
 * sold beyond capacity and no coupon beyond its limits, whatever runs at the same time.
 *
 * Locks are taken in the order basket, inventories (in id order), coupons (in id order), and
 * the inventory locks as late and as briefly as possible, because every buyer of a sought-after
 * inventory queues for them: the order, its items and tickets are written from a reading without
 * locks, then the sale (`takeTickets`: lock, judge, sell, or refuse) checks that each unit price
 * is still the one the order was written with. A basket without coupons then has nothing left
 * to decide: the sale is the transaction's last statement, sent with the COMMIT. With coupons,
 * they are locked and the basket priced again under the locks. When the prices moved in between
 * (a price or coupon changed) the attempt rolls back and runs again.
 *
 * The order is priced exactly as the basket reads now. A coupon that no longer applies refuses
 * the checkout with its error (422) rather than changing the price the customer saw; it can be
 * removed from the basket. With `expectedTotal` (what the partner's payment captured), a plan
 * total other than it refuses with 409 price_changed, decided under the locks like every
 * refusal: the order is exactly what was charged, or nothing is sold and the hold stays. A
 * basket already linked to another customer is not found; one checked out already answers 409
 * basket_checked_out with its order (a replay of the same Idempotency-Key answers the order).
 * The `order.confirmed` webhook event is written in the same transaction (none when no endpoint
 * of the seller wants it).
 */
export async function placeOrder(db: Db, options: PlaceOrderOptions): Promise<{ body: OrderView; replayed: boolean }> {
  const { holds } = options
  // A keyed checkout runs alone: its answer is stored in its own transaction.
  if (!holds || options.idempotencyKey) return placeOrderAlone(db, options)
  const inventoryIds = holds.heldBy(options.basketId) ?? (await basketInventoryIds(db, options.sellerId, options.basketId))
  // A basket of no inventory (unknown, another seller's, empty) is answered alone.
  if (inventoryIds.length === 0) return placeOrderAlone(db, options)
  const key = `sale ${options.sellerId} ${[...inventoryIds].sort().join(' ')}`
  return holds.inGroup(key, inventoryIds, options, (members, answer: (n: number, outcome: Settled<Placement>) => void) =>
    sellTogether(db, holds.groupBudgetMs, members, answer),
  )
}

type Placement = { body: OrderView; replayed: boolean }

/**
 * Checkouts of baskets of the same inventories, in ONE transaction: each basket's checkout up to
 * its sale, side by side on the transaction's connection (nothing there locks an inventory), then
 * one statement that sells every basket in arrival order, each by take_tickets exactly as alone
 * (`takeTicketsGroup`), sent with the COMMIT. A basket whose reading refuses it (gone, expired,
 * checked out already, …) has written nothing: it is answered that refusal at once and the group
 * goes on. Past that, a group is all or nothing: should any basket fail (its tickets refused, a
 * price moved, any error), the group rolls back and each basket not yet answered is checked out
 * alone, in order, and answered as soon as it is, so that every buyer gets exactly its own answer,
 * the first without waiting for the last. Buyers of one flash sale hold their tickets, so their
 * checkouts rarely fail. A basket sent twice in a group is checked out alone after it.
 *
 * Bounded (issue 45): the sale statement attempts no further sale once it has run the queue's
 * `groupBudgetMs`. It cannot commit part of a group (every basket's order was written before it),
 * so it rolls the group back (`GroupCut`), and the baskets before the first one it did not reach
 * go again as one group (about the budget's worth of sales, itself bounded), then the rest as the
 * next, in order: every statement stays far under the statement timeout, at the price of doing a
 * cut group's sales twice.
 */
async function sellTogether(db: Db, budgetMs: number, members: PlaceOrderOptions[], answer: (n: number, outcome: Settled<Placement>) => void) {
  const answered = new Set<number>()
  const settle = (n: number, outcome: Settled<Placement>) => {
    answered.add(n)
    answer(n, outcome)
  }
  const alone = async (places: number[]) => {
    for (const n of places) {
      if (answered.has(n)) continue
      try {
        settle(n, { value: await placeOrderAlone(db, members[n]!) })
      } catch (error) {
        settle(n, { error })
      }
    }
  }
  const firsts = members.flatMap((member, n) => (members.findIndex((other) => other.basketId === member.basketId) === n ? [n] : []))
  // The groups still to send, in arrival order.
  const batches = [firsts]
  for (let batch = batches.shift(); batch; batch = batches.shift()) {
    // A group of one is an ordinary checkout.
    if (batch.length <= 1) {
      await alone(batch)
      continue
    }
    try {
      const sold = await sellOnce(
        db,
        budgetMs,
        batch.map((n) => members[n]!),
        (k, error) => settle(batch[k]!, { error }),
      )
      for (const [k, view] of sold) settle(batch[k]!, { value: { body: view, replayed: false } })
    } catch (error) {
      // Nothing of the group committed. Each part is smaller than the group (the first sale is always attempted): this ends.
      if (error instanceof GroupCut && error.at > 0 && error.at < batch.length) {
        const open = (places: number[]) => places.filter((n) => !answered.has(n))
        batches.unshift(...[open(batch.slice(0, error.at)), open(batch.slice(error.at))].filter((part) => part.length > 0))
      } else await alone(batch)
    }
  }
  await alone(members.map((_, n) => n))
}

/**
 * One transaction of a group of checkouts (`sellTogether`): answers the baskets sold, by their
 * place here; those their reading refuses go to `refused` at once. Throws when nothing committed:
 * `GroupCut` (its budget spent) names the place here of the first basket whose sale it did not reach.
 */
async function sellOnce(db: Db, budgetMs: number, members: PlaceOrderOptions[], refused: (k: number, error: AppError) => void) {
  const { result } = await transactionEndingWith(db, async (tx) => {
    const sideBySide = <T>(works: (() => Promise<T>)[]) => (pipelines(tx) ? Promise.allSettled(works.map((work) => work())) : inTurns(works))
    // Baskets refused by their reading (gone, expired, checked out, …) wrote nothing: answered as they are.
    const readings = await sideBySide(members.map((member) => () => readCheckout(tx, member)))
    const going: { k: number; reading: CheckoutReading }[] = []
    for (const [k, read] of readings.entries()) {
      if (read.status === 'fulfilled') going.push({ k, reading: read.value })
      else if (read.reason instanceof AppError) refused(k, read.reason)
      else throw read.reason
    }
    const settled = await sideBySide(
      going.map(
        ({ k, reading }) =>
          () =>
            placeCheckout(tx, reading, members[k]!),
      ),
    )
    const failed = settled.find((one): one is PromiseRejectedResult => one.status === 'rejected')
    if (failed) throw failed.reason
    const placed = settled.map((one) => (one as PromiseFulfilledResult<Placed>).value)
    // The place here of each sale's basket.
    const selling = going.flatMap(({ k }, m) => (placed[m]!.sale ? [k] : []))
    const sales = placed.flatMap((one) => (one.sale ? [one.sale] : []))
    const events = placed.flatMap((one) => placedNotices(tx, one))
    const sale = sales.length > 0 ? takeTicketsGroup(sales, budgetMs) : undefined
    return {
      result: placed.map((one, m) => [going[m]!.k, one.view] as const),
      last: sale && {
        ...sale,
        explain: (error: unknown) => {
          const cut = sale.explain!(error)
          return cut instanceof GroupCut ? new GroupCut(selling[cut.at] ?? -1) : cut
        },
      },
      alongside: events,
    }
  })
  return result
}

/**
 * What a checkout tells, written with it: the webhook event (an order paid at once is confirmed;
 * one awaiting payment is pending) and, awaiting payment, the buyer's email of what is due and
 * until when. (A paid checkout's tickets are the partner's to show: its tickets' email goes only
 * when a pending order is paid.)
 */
function placedNotices(tx: Db, placed: Placed): Executable<unknown>[] {
  const { view, email } = placed
  const event = webhookEventsStatement(view.seller_id, [orderEvent(view.status === 'pending' ? 'order.pending' : 'order.confirmed', view)])
  return [...(event ? [sqlStatement(tx, event)] : []), ...(email ? [{ execute: () => enqueueEmail(tx, email) }] : [])]
}

/** Runs each in turn, settling each (on a connection that does not pipeline, side by side gains nothing). */
async function inTurns<T>(works: readonly (() => Promise<T>)[]): Promise<PromiseSettledResult<T>[]> {
  const settled: PromiseSettledResult<T>[] = []
  for (const work of works) {
    try {
      settled.push({ status: 'fulfilled', value: await work() })
    } catch (reason) {
      settled.push({ status: 'rejected', reason })
    }
  }
  return settled
}

/** One checkout in its own transaction. */
async function placeOrderAlone(db: Db, options: PlaceOrderOptions): Promise<{ body: OrderView; replayed: boolean }> {
  const guard = guardOf(options)
  for (let attempt = 1; ; attempt++) {
    try {
      const { result } = await transactionEndingWith(db, async (tx) => {
        let placed: Placed | undefined
        const result = await runIdempotent(tx, guard, 201, async () => {
          placed = await checkout(tx, options)
          return placed.view
        })
        // A replay: nothing to write.
        if (!placed) return { result }
        // After the answer is stored for a replay: the sale may still refuse, rolling it back. The
        // order's webhook event (and a pending order's email), made from the rows written, travel with the sale and the COMMIT.
        return { result, last: placed.sale && takeTickets(placed.sale), alongside: placedNotices(tx, placed) }
      })
      return result
    } catch (error) {
      if (isUniqueViolation(error, 'tickets_inventory_seat_key')) throw seatSoldMeanwhile(error)
      if (!(error instanceof PricesMoved)) throw error
      if (attempt >= MAX_ATTEMPTS) {
        throw new AppError('service_unavailable', { message: 'Prices changed during the checkout; retry', headers: { 'retry-after': '1' } })
      }
    }
  }
}

/**
 * A seat of the basket was sold to another order meanwhile (its hold had lapsed and another
 * basket took and bought it): the unique index on valid tickets' seats refused the second sale.
 */
function seatSoldMeanwhile(error: unknown): AppError {
  const seat = /\(inventory_id, seat_id\)=\([^,]+, (.*)\) already exists/.exec(errorDetail(error) ?? '')?.[1]
  return new AppError('seat_unavailable', { details: { seats: seat ? [seat] : [] } })
}

const guardOf = (options: PlaceOrderOptions) =>
  options.idempotencyKey
    ? {
        sellerId: options.sellerId,
        key: options.idempotencyKey,
        request: [
          'POST /baskets/:id/checkout',
          options.basketId,
          options.affiliate?.id ?? null,
          options.customerId,
          options.paymentMethod,
          options.installments ?? null,
          options.paymentReference ?? null,
          // Absent from the keys stored before they existed, so that their replays still match.
          ...(options.expectedTotal === undefined ? [] : [options.expectedTotal]),
          ...(options.awaitPayment ? [{ await_payment: true }] : []),
          ...(options.customerId === null && options.buyer ? [{ buyer: options.buyer }] : []),
        ],
      }
    : undefined

/** The order placed, as the database wrote it, and the sale still to run as the transaction's last statement (none: done). */
type Placed = { view: OrderView; sale: TakeTicketsOptions | undefined; email?: EmailMessage | undefined }

/**
 * One checkout, top to bottom: the basket locked and read, priced from a reading without locks,
 * the order written, then the sale. Without coupons, nothing is left to decide after the sale: it
 * ends the transaction, sent with the COMMIT. Otherwise (coupons, or a reading without locks that
 * refused) the sale runs now and the basket is priced again under the locks, which alone may
 * refuse; a pricing that moved since the order was written retries (`PricesMoved`).
 */
async function checkout(tx: Db, options: PlaceOrderOptions): Promise<Placed> {
  return placeCheckout(tx, await readCheckout(tx, options), options)
}

/** A checkout's reading, before anything is written: the basket locked, its lines, and their pricing. */
type CheckoutReading = { basket: BasketState; lines: BasketLine[]; draft: Pricing; method: PaymentMethod }

/** The first half of a checkout: the basket locked and read, and priced without locks. Writes nothing; refuses by throwing an AppError. */
async function readCheckout(tx: Db, options: PlaceOrderOptions): Promise<CheckoutReading> {
  const { sellerId, basketId, customerId, affiliate } = options
  // The lines are read after the basket is locked, in the same round trip.
  const [locked, lineRows] = await inOrder(tx, lockBasketQuery(tx, sellerId, basketId), basketLinesQuery(tx, basketId))
  const lines = lineRows.map(withUnitPrice)
  const basket = basketLocked(locked)
  assertBasketAccess(basket, affiliate)
  if (basket.customerId !== null && basket.customerId !== customerId) throw new AppError('not_found')
  await assertBasketOpen(tx, basket)
  if (lines.length === 0) throw new AppError('basket_empty')
  const method = options.paymentMethod
  if (!isPaymentMethod(method)) throw new AppError('unsupported_payment_method')
  const withdrawn = lines.find((line) => !line.variantOffered)
  if (withdrawn) {
    throw new AppError('inventory_unavailable', {
      message: `Inventory ${withdrawn.inventoryId} no longer offers the variant "${withdrawn.variant}"; remove the item`,
      details: { inventory_id: withdrawn.inventoryId, variant: withdrawn.variant },
    })
  }

  const draft = evaluate(basket, await loadBasketContents(tx, basket, { lines, customerId, guestEmail: options.buyer?.email }), options)
  return { basket, lines, draft, method }
}

/** The second half: the order written, and the sale to end with (or, with coupons, run now). */
async function placeCheckout(tx: Db, reading: CheckoutReading, options: PlaceOrderOptions): Promise<Placed> {
  const { sellerId, basketId, customerId, affiliate } = options
  const { basket, lines, draft, method } = reading
  // Written before the inventories are locked, unless this reading refuses (only a reading under the locks may).
  const written = draft.refusal ? undefined : await writeOrder(tx, basket, draft, method, options)
  const view = written?.view
  const sale: TakeTicketsOptions = {
    sellerId,
    scope: affiliate?.eventIds ?? null,
    basketId,
    wanted: quantitiesByInventory(lines),
    added: new Map<string, number>(),
    // The sale refuses unless every price (the inventories' and their variants') is still the one the order was written with.
    prices: view && new Map(lines.map((line) => [line.inventoryId, line.inventoryPrice])),
    variants: new Map(lines.flatMap((line) => (line.variantsDigest === null ? [] : [[line.inventoryId, line.variantsDigest] as const]))),
    sell: true,
  }
  const couponed = basket.couponId !== null || lines.some((line) => line.couponId !== null)
  if (view && !couponed) return { view, sale, email: written.email }

  // Decided under the locks: the inventories (the sale), then the coupons, and the basket priced again.
  const final = await evaluateLocked(tx, basket, lines, await runStatement(tx, takeTickets(sale)), options)
  if (final.refusal) throw final.refusal
  if (!view || fingerprintOf(final) !== fingerprintOf(draft)) throw new PricesMoved()
  await redeemCoupons(tx, final, view.id, customerId)
  return { view, sale: undefined, email: written!.email }
}

/**
 * The basket priced from the locked inventory rows, its coupons locked (after the inventories).
 * A variant's own price is as read: a sale with `variants` refuses if the variants changed.
 */
async function evaluateLocked(tx: Db, basket: BasketState, lines: BasketLine[], locked: ReadonlyMap<string, InventoryState>, options: PlaceOrderOptions) {
  const pricedLines = lines.map((line) => {
    const price = locked.get(line.inventoryId)!.price
    return { ...line, inventoryPrice: price, unitPrice: line.variantPrice ?? price }
  })
  return evaluate(
    basket,
    await loadBasketContents(tx, basket, { lines: pricedLines, customerId: options.customerId, guestEmail: options.buyer?.email, lock: true }),
    options,
  )
}

/**
 * Writes the order, its items and tickets, the basket checked out and the audit entry, and
 * answers the order as the database wrote it, signed: nothing here needs the inventory locks,
 * and nothing needs another's answer (the ids are made here), so they travel together.
 */
async function writeOrder(tx: Db, basket: BasketState, pricing: Pricing, method: PaymentMethod, options: PlaceOrderOptions) {
  const { sellerId, basketId, customerId, affiliate } = options
  const { contents, price, plan } = pricing
  const basketCoupon = basket.couponId ? contents.coupons.get(basket.couponId) : undefined
  const orderId = randomUUID()
  const items = pricing.lines.map((line, n) => {
    const coupon = line.couponId ? contents.coupons.get(line.couponId) : undefined
    return {
      id: randomUUID(),
      inventoryId: line.inventoryId,
      eventId: line.eventId,
      date: line.date,
      name: line.name,
      variant: line.variant,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      discount: price.lines[n]!.discount,
      total: price.lines[n]!.total,
      couponId: coupon?.id ?? null,
      coupon: couponView(coupon),
      seats: line.seats,
      position: n,
    }
  })
  // One ticket per unit; on a seated item, one per seat, in the item's order.
  const issued = items.flatMap((item) =>
    Array.from({ length: item.quantity }, (_, n) => ({
      id: randomUUID(),
      orderItemId: item.id,
      inventoryId: item.inventoryId,
      identifier: newTicketIdentifier(),
      seatId: item.seats?.[n]?.id ?? null,
    })),
  )
  const status = placedStatus(options.awaitPayment === true, plan!.total)
  const pending = status === 'pending'
  const order = {
    id: orderId,
    status,
    sellerId,
    basketId,
    affiliateId: affiliate?.id ?? null,
    affiliateCode: affiliate?.code ?? null,
    customerId,
    buyerEmail: options.buyer?.email ?? null,
    buyerName: options.buyer?.name ?? null,
    orderTokenHash: options.orderToken?.hash ?? null,
    couponId: basketCoupon?.id ?? null,
    coupon: couponView(basketCoupon),
    subtotal: price.subtotal,
    discount: price.discount,
    interest: plan!.interest,
    total: plan!.total,
    paymentMethod: method,
    installments: plan!.installments,
    installmentAmount: plan!.amount,
    paymentReference: options.paymentReference ?? null,
    paymentDueMinutes: pending ? (options.paymentMinutes ?? DEFAULT_SETTINGS.payment_minutes)[method] : null,
    paidTotal: pending ? 0 : plan!.total,
  }
  // Paid at checkout: the payment, and the ledger's sale and payment, are written with the order.
  const payment = pending
    ? undefined
    : { id: randomUUID(), sellerId, orderId, amount: plan!.total, method, installments: plan!.installments, reference: order.paymentReference }
  const ledgerOrder = { id: orderId, sellerId, interest: order.interest, affiliateCode: order.affiliateCode, coupon: order.coupon }
  const ledger = payment ? [...saleRows(ledgerOrder, items, method), ...paymentRows(ledgerOrder, payment)] : []
  await options.codes.ensureKeys(tx, sellerId)
  const [[written], writtenItems, writtenTickets, writtenPayments, , emailContexts, , , shows] = await inOrder(
    tx,
    ...insertOrderQueries(tx, order, items, issued),
    insertPaymentQuery(tx, payment),
    insertLedgerRows(tx, ledger),
    // Awaiting payment, the buyer is told what is due; a guest gets the order's link either way: to whom, and in the seller's words.
    { execute: () => (pending || options.orderToken ? orderEmailContexts(tx, [orderId]) : Promise.resolve(new Map<string, OrderEmailContext>())) },
    checkOutBasketQuery(tx, basketId, customerId),
    auditInsert(tx, options.actor, {
      action: 'stf.order.placed',
      target: { type: 'order', id: orderId },
      sellerId,
      data: {
        basket_id: basketId,
        customer_id: customerId,
        total: plan!.total,
        payment_method: options.paymentMethod,
        installments: plan!.installments,
        tickets: issued.length,
      },
    }),
    // The answer shows each item's show time and venue, as every later read of the order does.
    itemShowsQuery(
      tx,
      items.map((item) => item.inventoryId),
    ),
  )
  const signed = await withSigningKeys(tx, options.codes, sellerId, writtenTickets)
  const shown = writtenItems.map((item) => ({ ...item, ...shows.get(item.inventoryId)! }))
  const view = await signOrderView(tx, options.codes, toOrderView(written!, shown, signed, { payments: writtenPayments, refunds: [] }))
  const found = emailContexts.get(orderId)
  const context = found && options.orderToken ? { ...found, link: orderLinkOf(found.seller.storefrontUrl, orderId, options.orderToken.token) } : found
  return { view, email: context && (pending ? orderPendingEmail(context, view) : orderConfirmedEmail(context, view)) }
}

/**
 * The tickets, each with a signing key: the seller's keys were made by this process in a
 * transaction that then rolled back (so it took them for made), and the tickets were written
 * without one. Made now, in this one.
 */
async function withSigningKeys(tx: Db, codes: TicketCodes, sellerId: string, written: TicketRow[]): Promise<TicketRow[]> {
  const unkeyed = written.filter((ticket) => ticket.signingKeyId === null)
  if (unkeyed.length === 0) return written
  codes.forgetKeyed(sellerId)
  await codes.ensureKeys(tx, sellerId)
  const active = (await findActiveKeyRow(tx, sellerId))!
  await setTicketsKey(
    tx,
    unkeyed.map((ticket) => ticket.id),
    active.id,
  )
  return written.map((ticket) => (ticket.signingKeyId === null ? { ...ticket, signingKeyId: active.id } : ticket))
}

/** Under the coupon locks: each coupon is redeemed within its limit. */
async function redeemCoupons(tx: Db, pricing: Pricing, orderId: string, customerId: string | null) {
  for (const coupon of pricing.contents.coupons.values()) {
    const [redeemed] = await tx
      .update(coupons)
      .set({ uses: sql`${coupons.uses} + 1` })
      .where(and(eq(coupons.id, coupon.id), or(isNull(coupons.maxUses), sql`${coupons.uses} < ${coupons.maxUses}`)))
      .returning({ id: coupons.id })
    if (!redeemed) throw new AppError('coupon_exhausted')
    await tx.insert(couponRedemptions).values({ couponId: coupon.id, orderId, customerId })
  }
}
