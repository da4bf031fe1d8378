import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { events } from '../../src/domain/catalog/events.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { customerRefreshTokens } from '../../src/domain/customers/customer-tokens.table.js'
import { customers } from '../../src/domain/customers/customers.table.js'
import { createSeatingPlan } from '../../src/domain/seating/create-seating-plan.js'
import { gridPlan } from '../../src/domain/seating/grid-plan.js'
import { affiliates } from '../../src/domain/sellers/affiliates.table.js'
import { createSeller } from '../../src/domain/sellers/create-seller.js'
import { hashPassword } from '../../src/platform/auth/passwords.js'
import { signCustomerAccessToken } from '../../src/storefront/customer-auth.js'

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

export type SeedBenchOptions = {
  /** Tickets in each flash-sale inventory, and in the five split inventories together. */
  flashCapacity: number
  /** Customers to create, each with an access token. */
  customers: number
  /** Rows of the seated flash sale's plan, 50 seats each, one category, no aisle (0: no seated sale). */
  seatedRows: number
}

/** Seats in each row of the seated flash sale's plan. */
export const SEATED_ROW_SEATS = 50

/** The password of every bench customer. */
export const BENCH_PASSWORD = 'bench-password-1'

/**
 * The benchmark's data set: a seller with 200 published events (one inventory each), 20
 * inventories with ample stock for basket writes, flash-sale inventories of `flashCapacity`
 * tickets each (a warm-up and a measured one for the checkout flow; a warm-up and two measured
 * ones, before and after it, for the raw-UPDATE limit; four for the webhook group's rounds) and
 * five that hold `flashCapacity` tickets between them (the same stock split), an affiliate, and
 * customers with access tokens. The seated group's: a plan of `seatedRows` rows of 50 seats (one
 * category, no aisle; stored by the product's own `createSeatingPlan`), three seated inventories
 * selling all of it (a warm-up and two measured sales, each on a date of its own: a category is
 * sold by one inventory per date), and three unseated ones of as many tickets, its baseline.
 *
 * The customers are inserted directly with ONE argon2id hash shared by all, and their access
 * tokens are signed here: registering each one through the API would spend the seeding time on
 * argon2 (the login scenario measures that cost on its own).
 */
export async function seedBench(app: FastifyInstance, options: SeedBenchOptions) {
  const { seller, apiKey } = await createSeller(app.db, {
    name: 'Bench Seller',
    storefrontUrl: 'https://bench.example.com',
    tokenHmac: app.secrets.tokenHmac,
    actor: { type: 'system' },
  })
  const eventRows = await app.db
    .insert(events)
    .values(
      Array.from({ length: 200 }, (_, n) => ({
        sellerId: seller.id,
        title: `Bench event ${n + 1}`,
        slug: `bench-event-${n + 1}`,
        description: 'A benchmark event',
        status: 'published' as const,
        source: 'bench',
      })),
    )
    .returning({ id: events.id })
  const catalogue = await app.db
    .insert(inventories)
    .values(
      eventRows.map((e, n) => ({
        sellerId: seller.id,
        eventId: e.id,
        date: day(1 + (n % 60)),
        name: 'General',
        price: 5000 + n * 10,
        // The first 20 carry the basket-write scenario: stock that never runs out.
        capacity: n < 20 ? 1_000_000 : 500,
      })),
    )
    .returning({ id: inventories.id })
  const ample = catalogue.slice(0, 20).map((i) => i.id)

  // The flash-sale inventories belong to an event of their own, far from the catalogue's first page.
  const [flashEvent] = await app.db
    .insert(events)
    .values({ sellerId: seller.id, title: 'Bench flash sale', slug: 'bench-flash-sale', status: 'published', source: 'bench' })
    .returning({ id: events.id })
  // The webhook group's four: alternating rounds without and with an endpoint subscribed.
  // The five of 'split': the sale's stock split over five inventories, a fifth of it each, the
  // remainder one by one to the first ones, so that together they hold exactly `flashCapacity`.
  const flashNames = ['warm-up', 'sale', 'raw warm-up', 'raw', 'raw again', 'webhooks off 1', 'webhooks on 1', 'webhooks off 2', 'webhooks on 2'] as const
  const splitNames = ['split 1', 'split 2', 'split 3', 'split 4', 'split 5'] as const
  const fifth = Math.floor(options.flashCapacity / splitNames.length)
  const flashRows = [
    ...flashNames.map((name) => ({ name, capacity: options.flashCapacity })),
    ...splitNames.map((name, n) => ({ name, capacity: fifth + (n < options.flashCapacity % splitNames.length ? 1 : 0) })),
  ]
  const flash = await app.db
    .insert(inventories)
    .values(flashRows.map(({ name, capacity }) => ({ sellerId: seller.id, eventId: flashEvent!.id, date: day(90), name, price: 10000, capacity })))
    .returning({ id: inventories.id })

  const seated = options.seatedRows > 0 ? await seedSeated(app, seller.id, options.seatedRows) : null

  const [affiliate] = await app.db.insert(affiliates).values({ sellerId: seller.id, code: 'BENCH', name: 'Bench affiliate' }).returning()

  const passwordHash = await hashPassword(BENCH_PASSWORD)
  const customerRows =
    options.customers === 0
      ? []
      : await app.db
          .insert(customers)
          .values(
            Array.from({ length: options.customers }, (_, n) => ({
              sellerId: seller.id,
              email: `buyer-${n + 1}@bench.example.com`,
              passwordHash,
              emailVerifiedAt: new Date(),
              firstName: 'Bench',
              lastName: `Buyer ${n + 1}`,
            })),
          )
          .returning({ id: customers.id, email: customers.email })
  // One live session each, which their access tokens name.
  const sessionOf = new Map<string, string>()
  if (customerRows.length > 0) {
    const rows = customerRows.map((c) => ({
      sellerId: seller.id,
      customerId: c.id,
      familyId: randomUUID(),
      tokenHash: randomUUID(),
      expiresAt: new Date(Date.now() + 86_400_000),
    }))
    await app.db.insert(customerRefreshTokens).values(rows)
    for (const row of rows) sessionOf.set(row.customerId, row.familyId)
  }

  return {
    sellerId: seller.id,
    apiKey,
    affiliateCode: affiliate!.code,
    ampleInventoryIds: ample,
    flash: {
      warmUp: flash[0]!.id,
      sale: flash[1]!.id,
      rawWarmUp: flash[2]!.id,
      raw: flash[3]!.id,
      rawAgain: flash[4]!.id,
      webhookRounds: [flash[5]!.id, flash[6]!.id, flash[7]!.id, flash[8]!.id],
      split: flash.slice(flashNames.length).map((row) => row.id),
      capacity: options.flashCapacity,
    },
    seated,
    password: BENCH_PASSWORD,
    customers: customerRows.map((c) => ({
      id: c.id,
      email: c.email,
      token: signCustomerAccessToken(app, { customerId: c.id, sellerId: seller.id, sessionId: sessionOf.get(c.id)!, email: c.email }).token,
    })),
  }
}

/**
 * The seated group's plan and inventories (see `seedBench`): `warmUp` and `sales` sell the plan's
 * one category, `pairs` are unseated inventories of as many tickets (`pairs[0]` the warm-up).
 */
async function seedSeated(app: FastifyInstance, sellerId: string, rows: number) {
  const category = 'Plateia'
  const plan = await createSeatingPlan(app.db, {
    sellerId,
    name: 'Bench seated flash sale',
    plan: gridPlan({ name: 'Bench seated flash sale', rows, seatsPerRow: SEATED_ROW_SEATS, categories: [{ name: category }] }),
    actor: { type: 'system' },
  })
  const [event] = await app.db
    .insert(events)
    .values({ sellerId, title: 'Bench seated flash sale', slug: 'bench-seated-flash-sale', status: 'published', source: 'bench' })
    .returning({ id: events.id })
  const common = { sellerId, eventId: event!.id, price: 10000, capacity: plan.seats }
  const seatedRows = await app.db
    .insert(inventories)
    .values(
      ['seated warm-up', 'seated 1', 'seated 2'].map((name, n) => ({ ...common, name, date: day(91 + n), seatingPlanId: plan.id, seatingCategory: category })),
    )
    .returning({ id: inventories.id })
  const pairRows = await app.db
    .insert(inventories)
    .values(['pairs warm-up', 'pairs 1', 'pairs 2'].map((name) => ({ ...common, name, date: day(90) })))
    .returning({ id: inventories.id })
  return {
    planId: plan.id,
    seats: plan.seats,
    warmUp: seatedRows[0]!.id,
    sales: seatedRows.slice(1).map((row) => row.id),
    pairsWarmUp: pairRows[0]!.id,
    pairs: pairRows.slice(1).map((row) => row.id),
  }
}

export type BenchSeed = Awaited<ReturnType<typeof seedBench>>
