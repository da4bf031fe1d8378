import type { FastifyInstance } from 'fastify'
import { events } from '../../src/domain/catalog/events.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { createBasket } from '../../src/domain/baskets/create-basket.js'
import { placeOrder } from '../../src/domain/orders/place-order.js'
import { lockInventories } from '../../src/domain/inventory/inventory.repo.js'
import { announceSeatsChanged, writeSeatBlocks } from '../../src/domain/seating/seats.repo.js'
import { createSeatingPlan } from '../../src/domain/seating/create-seating-plan.js'
import { gridPlan } from '../../src/domain/seating/grid-plan.js'
import { DEFAULT_SETTINGS } from '../../src/domain/sellers/seller-settings.js'
import { SEATED_ROW_SEATS } from './seed-bench.js'

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

export type SeedStadiumOptions = {
  sellerId: string
  /** The customer every seeded order belongs to. */
  customerId: string
  /** Rows of 50 seats: 1,000 make the 50,000-seat stadium (10 in a smoke run). */
  rows: number
}

/** Seats of each row sold in the holds' inventory: the middle half (13 to 37 of 50), as a stadium fills from the middle. */
export const HOLDS_SOLD = { from: 13, to: 37 }
/** Seats of each row left on sale in the stadium sale's inventory: the last two (49 and 50); every other seat is blocked. */
export const SALE_FREE = { from: 49, to: 50 }
/** Seats sold by one seeded order: the most one basket item holds. */
const ORDER_SEATS = 20
/** Seats blocked by one insert (two parameters a seat: well under PostgreSQL's 65,535 a statement). */
const BLOCK_SEATS = 10_000
/** Seeded orders written at a time. */
const LANES = 2

/**
 * The stadium row's data (bench/README.md): a plan of `rows` rows of 50 seats (one category, no
 * aisle; 50,000 seats at 1,000 rows), and on it, each on a date of its own (a category is sold by
 * one inventory per date):
 * - `holds`: half the seats sold (the middle half of every row, `HOLDS_SOLD`: 25,000 at 1,000
 *   rows), where the concurrent best-available holds and the measured holds run. Sold through
 *   the product's own hold and checkout (`createBasket`, `placeOrder`, the functions the routes
 *   call, hence the very SQL that holds and sells a seat, whatever keeps the seats' standings), in
 *   orders of 20 named seats (the most an item holds), `LANES` at a time, as one customer's;
 * - `sale`: every seat blocked but the last two of each row (`SALE_FREE`: 2,000 seats on sale at
 *   1,000 rows), the stadium flash sale's inventory. Blocked by the back office's own writes
 *   (`writeSeatBlocks`) under the inventory's locks: a blocked seat is as taken as a sold one
 *   (seat_standings.sql) and the sale reads every one of them, while selling 48,000 seats
 *   through checkouts would take the seed minutes;
 * - `pairs`: three unseated inventories of as many tickets as `sale` has on sale (a warm-up and
 *   two measured runs), its baseline.
 * Answers the inventories and how long the seed took.
 */
export async function seedStadium(app: FastifyInstance, options: SeedStadiumOptions) {
  const started = performance.now()
  const { sellerId, customerId, rows } = options
  const category = 'Arquibancada'
  const plan = await createSeatingPlan(app.db, {
    sellerId,
    name: 'Bench stadium',
    plan: gridPlan({ name: 'Bench stadium', rows, seatsPerRow: SEATED_ROW_SEATS, categories: [{ name: category }] }),
    actor: { type: 'system' },
  })
  const planMs = performance.now() - started
  const [event] = await app.db
    .insert(events)
    .values({ sellerId, title: 'Bench stadium', slug: `bench-stadium-${Date.now()}`, status: 'published', source: 'bench' })
    .returning({ id: events.id })
  const common = { sellerId, eventId: event!.id, price: 10000 }
  const seated = await app.db
    .insert(inventories)
    .values(
      ['stadium holds', 'stadium sale'].map((name, n) => ({
        ...common,
        name,
        capacity: plan.seats,
        date: day(101 + n),
        seatingPlanId: plan.id,
        seatingCategory: category,
      })),
    )
    .returning({ id: inventories.id })
  const onSale = rows * (SALE_FREE.to - SALE_FREE.from + 1)
  const pairs = await app.db
    .insert(inventories)
    .values(['stadium pairs warm-up', 'stadium pairs 1', 'stadium pairs 2'].map((name) => ({ ...common, name, capacity: onSale, date: day(100) })))
    .returning({ id: inventories.id })

  const [holds, sale] = seated as [{ id: string }, { id: string }]
  // Seat ids as gridPlan writes them: `Main-<row>-<number>`, rows and numbers from 1; the seats of
  // each row that `keep` keeps, front row first, cut into orders of `ORDER_SEATS`.
  const chunksOf = (inventoryId: string, keep: (n: number) => boolean) => {
    const seats = Array.from({ length: rows }, (_, r) =>
      Array.from({ length: SEATED_ROW_SEATS }, (_, i) => i + 1)
        .filter(keep)
        .map((n) => `Main-${r + 1}-${n}`),
    ).flat()
    return Array.from({ length: Math.ceil(seats.length / ORDER_SEATS) }, (_, n) => ({
      inventoryId,
      seats: seats.slice(n * ORDER_SEATS, (n + 1) * ORDER_SEATS),
    }))
  }
  // The orders to write, taken by `LANES` workers at a time.
  const chunks = chunksOf(holds.id, (n) => n >= HOLDS_SOLD.from && n <= HOLDS_SOLD.to)
  let sold = 0
  let next = 0
  const actor = { type: 'customer' as const, id: customerId }
  const lane = async () => {
    while (next < chunks.length) {
      const { inventoryId, seats } = chunks[next++]!
      const basket = await createBasket(app.db, {
        sellerId,
        ttlSeconds: DEFAULT_SETTINGS.basket_ttl_seconds,
        affiliate: null,
        customerId,
        items: [{ inventoryId, quantity: seats.length, seats }],
        actor,
      })
      const order = await placeOrder(app.db, {
        codes: app.ticketCodes,
        sellerId,
        affiliate: null,
        basketId: basket.body.id,
        customerId,
        settings: DEFAULT_SETTINGS,
        paymentMethod: 'pix',
        actor,
      })
      sold += order.body.tickets.length
    }
  }
  await Promise.all(Array.from({ length: LANES }, lane))
  const soldMs = performance.now() - started
  // Blocked by the back office's own writes (seats.repo.ts, as blockSeats writes them) under the
  // inventory's locks, without blockSeats' reading of each named seat's standing first: the
  // inventory is new (nothing held or sold), and on the slow seat code that reading compares every
  // seat of the stadium with every seat named (minutes for 48,000).
  const taken = chunksOf(sale.id, (n) => n < SALE_FREE.from || n > SALE_FREE.to).flatMap((chunk) => chunk.seats)
  await app.db.transaction(async (tx) => {
    await lockInventories(tx, sellerId, [sale.id])
    for (let first = 0; first < taken.length; first += BLOCK_SEATS) await writeSeatBlocks(tx, sale.id, taken.slice(first, first + BLOCK_SEATS), true)
    await announceSeatsChanged(tx, { id: sale.id, sellerId }, false)
  })
  return {
    planId: plan.id,
    seats: plan.seats,
    rows,
    holds: holds.id,
    holdsSold: sold,
    holdsOrders: chunks.length,
    sale: sale.id,
    saleBlocked: taken.length,
    onSale,
    pairsWarmUp: pairs[0]!.id,
    pairs: pairs.slice(1).map((row) => row.id),
    planMs: Math.round(planMs),
    soldMs: Math.round(soldMs - planMs),
    seedMs: Math.round(performance.now() - started),
  }
}

export type StadiumSeed = Awaited<ReturnType<typeof seedStadium>>
