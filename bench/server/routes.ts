import { sql } from 'drizzle-orm'
import { openDatabase, type Database, type Db } from '../../src/platform/db/database.js'
import type { FastifyPluginAsync } from 'fastify'
import { registerEndUserAddress } from '../../src/storefront/end-user-address.js'
import { registerSellerAuth } from '../../src/storefront/seller-auth.js'
import { catalogueBaseline } from './catalogue-baseline.js'
import { createWebhook } from '../../src/domain/webhooks/create-webhook.js'
import { updateWebhook } from '../../src/domain/webhooks/update-webhook.js'
import { rawSell, saleState, seatedSaleState, webhookBacklog } from './flash-sale.js'
import { checkinTally, closeTransferMailbox, openTransferMailbox, readTransferMailbox, seedCheckin, unsentEmails } from './seed-checkin.js'
import { seedBench } from './seed-bench.js'
import { makeDue, paymentsState, seedPayments, soldNow } from './seed-payments.js'
import { seedReports } from './seed-reports.js'
import { seedStadium } from './seed-stadium.js'
import { seedExportTickets } from './seed-exports.js'
import { seedWaitlist, signedInAdmin, waitlistState } from './seed-waitlist.js'

const int = (value: unknown, fallback: number, max: number) => {
  const n = Number(value ?? fallback)
  return Number.isInteger(n) && n >= 0 && n <= max ? n : fallback
}

/**
 * Routes of the benchmark's server only (bench/server.ts), never of the product: baselines that do the same
 * work as a real route without authentication or response schemas, a seeding route (the
 * embedded database belongs to the server process, so the benchmark cannot seed it from
 * outside), the flash sale's raw limit and after-the-run state, the check-in row's devices
 * and tally and its transfers' mailbox (with the outbox's unsent emails), the waitlist row's inventory, member of staff and after-the-run state, the
 * payments row's inventories, its orders made due and their state, and the reports row's sales. Hidden
 * from the OpenAPI document; plain JSON in and out.
 */
export const benchRoutes: FastifyPluginAsync = async (app) => {
  // The benchmark's own reading of every seat of a stadium (its state after a sale) may outlast the server's statement timeout (5 s, and the driver's query timeout
  // a second after) on a busy machine: on PostgreSQL it runs on a handle of its own, a small pool
  // over the same database without them. The embedded database is one connection without timeouts.
  let patient: Promise<Database> | undefined
  const patientDb = async (): Promise<Db> => {
    const url = (app.db as unknown as { $client?: { options?: { connectionString?: string } } }).$client?.options?.connectionString
    if (!url) return app.db
    patient ??= openDatabase({ url, poolMax: 2, statementTimeoutMs: 600_000 })
    return (await patient).db
  }
  app.addHook('onClose', async () => {
    await (await patient)?.close()
  })

  app.get('/ping', { schema: { hide: true } }, async () => ({ ok: true }))

  /** Where a load connection that has nothing left to do waits, without costing the server anything. */
  app.get('/idle', { schema: { hide: true } }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 100))
    return { ok: true }
  })

  app.get('/db-ping', { schema: { hide: true } }, async () => {
    await app.db.execute(sql`select 1`)
    return { ok: true }
  })

  app.post('/seed', { schema: { hide: true } }, async (request, reply) => {
    const body = (request.body ?? {}) as { flash_capacity?: unknown; customers?: unknown; seated_rows?: unknown }
    // A size out of range is refused, not replaced by the default: the run would measure another sale than it says.
    const flashCapacity = int(body.flash_capacity, 1000, 1_000_000)
    const customers = int(body.customers, 200, 10_000)
    const seatedRows = int(body.seated_rows, 0, 2000)
    if (
      (body.flash_capacity !== undefined && flashCapacity !== Number(body.flash_capacity)) ||
      (body.customers !== undefined && customers !== Number(body.customers)) ||
      (body.seated_rows !== undefined && seatedRows !== Number(body.seated_rows))
    )
      return reply.code(400).send({ code: 'invalid_seed_size', flash_capacity: '0 to 1000000', customers: '0 to 10000', seated_rows: '0 to 2000' })
    return seedBench(app, { flashCapacity, customers, seatedRows })
  })

  /** The catalogue baseline: `?seller_id=&page=&limit=`, see catalogue-baseline.ts. */
  app.get('/events', { schema: { hide: true } }, async (request) => {
    const query = request.query as { seller_id?: string; page?: string; limit?: string }
    return catalogueBaseline(app.db, String(query.seller_id), Math.max(1, int(query.page, 1, 1_000_000)), Math.max(1, int(query.limit, 20, 100)))
  })

  /** The flash sale's limit: `{inventory_id, quantity}` → `{sold: boolean}`. */
  app.post('/raw-sell', { schema: { hide: true } }, async (request) => {
    const body = request.body as { inventory_id: string; quantity: number }
    return { sold: await rawSell(app.db, body.inventory_id, body.quantity) }
  })

  /** A webhook endpoint of the bench seller subscribed to `order.confirmed`: `{seller_id, url}` → `{id, secret}`. */
  app.post('/webhooks', { schema: { hide: true } }, async (request) => {
    const body = request.body as { seller_id: string; url: string }
    const { endpoint, secret } = await createWebhook(app.db, {
      sellerId: body.seller_id,
      url: body.url,
      events: ['order.confirmed'],
      policy: { allowInsecure: true, allowPrivate: true },
      secretKey: app.secrets.webhookSecrets,
      actor: { type: 'system' },
    })
    return { id: endpoint.id, secret }
  })

  /** Turns the endpoint on or off between rounds: `{active}`. */
  app.post('/webhooks/:id/active', { schema: { hide: true } }, async (request) => {
    const { active } = request.body as { active: boolean }
    const id = (request.params as { id: string }).id
    await updateWebhook(app.db, { id, active, policy: { allowInsecure: true, allowPrivate: true }, actor: { type: 'system' } })
    return { ok: true }
  })

  /** Deliveries of an endpoint by status, to wait for the backlog to drain. */
  app.get('/webhooks/:id/backlog', { schema: { hide: true } }, async (request) => {
    return webhookBacklog(app.db, (request.params as { id: string }).id)
  })

  /** The check-in row's event, lists and paired devices: `{seller_id, lists: [name], devices, days_ahead?}`. */
  app.post('/checkin/seed', { schema: { hide: true } }, async (request) => {
    const body = request.body as { seller_id: string; lists: string[]; devices: unknown; days_ahead?: unknown }
    return seedCheckin(app, { sellerId: body.seller_id, lists: body.lists, devices: int(body.devices, 50, 1000), daysAhead: int(body.days_ahead, 0, 365) })
  })

  /** A check-in list's scans as the database holds them, after a scenario. */
  app.get('/checkin/lists/:id/tally', { schema: { hide: true } }, async (request) => checkinTally(app.db, (request.params as { id: string }).id))

  /** The feed row's transfers: the recipients' mailbox opened, read (`{recipients}` → `{email: text}`) and closed (seed-checkin.ts). */
  app.post('/checkin/mailbox/open', { schema: { hide: true } }, async () => {
    await openTransferMailbox(app.db)
    return { ok: true }
  })
  app.post('/checkin/mailbox/read', { schema: { hide: true } }, async (request) =>
    readTransferMailbox(app.db, (request.body as { recipients: string[] }).recipients),
  )
  app.post('/checkin/mailbox/close', { schema: { hide: true } }, async () => {
    await closeTransferMailbox(app.db)
    return { ok: true }
  })

  /** Emails not sent yet: `{unsent}`. */
  app.get('/outbox/unsent', { schema: { hide: true } }, async () => ({ unsent: await unsentEmails(app.db) }))

  /** The waitlist row's inventory (its list on) and a signed-in member of staff: `{seller_id, capacity}` → WaitlistSeed. */
  /** The exports row's tickets (bulk SQL) and a signed-in admin: `{seller_id, tickets}` → `{event_id, tickets, staff_token}`. */
  app.post('/exports/seed', { schema: { hide: true } }, async (request) => {
    const body = request.body as { seller_id: string; tickets: unknown }
    const seeded = await seedExportTickets(app.db, { sellerId: body.seller_id, tickets: int(body.tickets, 100_000, 1_000_000) })
    return { event_id: seeded.eventId, tickets: seeded.tickets, staff_token: await signedInAdmin(app) }
  })

  app.post('/waitlist/seed', { schema: { hide: true } }, async (request) => {
    const body = request.body as { seller_id: string; capacity: unknown }
    return seedWaitlist(app, { sellerId: body.seller_id, capacity: int(body.capacity, 1000, 100_000) })
  })

  /** The stadium row's plan and inventories, half sold and all but 2 seats a row sold: `{seller_id, customer_id, rows}` → StadiumSeed. */
  app.post('/stadium/seed', { schema: { hide: true } }, async (request) => {
    const body = request.body as { seller_id: string; customer_id: string; rows: unknown }
    return seedStadium(app, {
      sellerId: body.seller_id,
      customerId: body.customer_id,
      rows: Math.max(1, int(body.rows, 1000, 2000)),
    })
  })

  /** The waitlist row's inventory as the database holds it: `?since=<epoch ms>` times the offers from then. */
  app.get('/waitlist/:id/state', { schema: { hide: true } }, async (request, reply) => {
    const since = Number((request.query as { since?: string }).since ?? 0)
    const state = await waitlistState(app.db, (request.params as { id: string }).id, Number.isFinite(since) ? since : 0)
    return state ?? reply.code(404).send({ code: 'not_found' })
  })

  /** The payments row's inventories: `{seller_id, capacity, pending_capacity}` → PaymentsSeed. */
  /** The reports row's seller, its tickets sold over 30 days in bulk, and a staff token: `{tickets}` → ReportsSeed. */
  app.post('/reports/seed', { schema: { hide: true } }, async (request) => {
    const body = request.body as { tickets: unknown }
    return seedReports(app, await patientDb(), { tickets: int(body.tickets, 100_000, 1_000_000) })
  })

  app.post('/payments/seed', { schema: { hide: true } }, async (request) => {
    const body = request.body as { seller_id: string; capacity: unknown; pending_capacity: unknown }
    return seedPayments(app, {
      sellerId: body.seller_id,
      capacity: int(body.capacity, 1000, 1_000_000),
      pendingCapacity: int(body.pending_capacity, 25_000, 1_000_000),
    })
  })

  /** Orders awaiting payment made due now: `{order_ids}` → `{moved, dueMs}` (the database's clock). */
  app.post('/payments/due', { schema: { hide: true } }, async (request) => makeDue(app.db, (request.body as { order_ids: string[] }).order_ids))

  /** The payments row's inventory as the database holds it: `?since=<epoch ms>` times the expiries from then; `?ids=1` lists the orders. */
  app.get('/payments/:id/state', { schema: { hide: true } }, async (request, reply) => {
    const query = request.query as { since?: string; ids?: string }
    const since = Number(query.since ?? 0)
    const state = await paymentsState(app.db, (request.params as { id: string }).id, { sinceMs: Number.isFinite(since) ? since : 0, ids: query.ids === '1' })
    return state ?? reply.code(404).send({ code: 'not_found' })
  })

  /** An inventory's `sold` and the database's clock: what the expiry is polled by. */
  app.get('/inventories/:id/sold', { schema: { hide: true } }, async (request, reply) => {
    const state = await soldNow(app.db, (request.params as { id: string }).id)
    return state ?? reply.code(404).send({ code: 'not_found' })
  })

  app.get('/inventories/:id/sale', { schema: { hide: true } }, async (request, reply) => {
    const state = await saleState(app.db, (request.params as { id: string }).id)
    return state ?? reply.code(404).send({ code: 'not_found' })
  })

  /** A seated inventory's seats after its sale, as seat_standings has them, against its valid tickets. */
  app.get('/inventories/:id/seats', { schema: { hide: true } }, async (request, reply) => {
    const state = await seatedSaleState(await patientDb(), (request.params as { id: string }).id)
    return state ?? reply.code(404).send({ code: 'not_found' })
  })
}

/**
 * The storefront twin of `/bench/ping`: the same work behind the storefront's own per-call hooks
 * (Basic authentication and `X-Affiliate-Code`, `X-End-User-IP`), registered as the storefront
 * registers them. Register under `/stf/v1`.
 */
export const benchStorefrontRoutes: FastifyPluginAsync = async (app) => {
  await registerSellerAuth(app)
  registerEndUserAddress(app)
  app.get('/bench/ping', { schema: { hide: true } }, async () => ({ ok: true }))
}
