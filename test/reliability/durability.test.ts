import { randomBytes, randomInt } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestSeller } from '../factories/sellers.js'
import { commerceViolations, queryDatabase } from '../support/commerce-invariants.js'
import { callServer, countStatuses, freshDatabase, openFixtures, startServer, type Answer, type Fixtures } from '../support/live-server.js'
import { PgCluster } from '../support/pg-cluster.js'
import type { ServerProcess } from '../support/server-process.js'
import { eventually } from '../support/smtp-sink.js'

/**
 * Durability: what was answered 201 is in the database whatever is killed afterwards (the app,
 * or PostgreSQL itself), and what was killed midway left whole orders or none.
 */
let servers: ServerProcess[] = []
let fixtures: Fixtures | undefined
let cluster: PgCluster | undefined
afterEach(async () => {
  await fixtures?.close()
  for (const server of servers) await server.stop('SIGKILL')
  await cluster?.destroy()
  servers = []
  fixtures = undefined
  cluster = undefined
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function shop(databaseUrl: string, customers: number, capacity = 100_000) {
  fixtures = await openFixtures(databaseUrl)
  const app = fixtures.app
  const seller = await createTestSeller(app)
  const event = await createTestEvent(app, seller.seller.id)
  const inventory = await createTestInventory(app, event, { capacity })
  const buyers = await Promise.all(Array.from({ length: customers }, async () => (await insertSignedInCustomer(app, seller)).headers))
  await fixtures.close()
  fixtures = undefined
  return { seller, event, inventory, buyers }
}

type Sale = Answer & { at: number; what: 'basket' | 'checkout' }

/** Storefronts opening a basket and checking it out, over and over, until `stop()` says so. */
function shoppers(baseUrl: () => string, inventoryId: string, buyers: Record<string, string>[], stop: () => boolean) {
  const answers: Sale[] = []
  const orders = new Map<string, unknown>()
  const started = Date.now()
  const loop = async (headers: Record<string, string>) => {
    while (!stop()) {
      const basket = await callServer(baseUrl(), 'POST', '/stf/v1/baskets', {
        headers,
        body: { items: [{ inventory_id: inventoryId, quantity: 1 + randomInt(3) }] },
      })
      answers.push({ ...basket, at: Date.now() - started, what: 'basket' })
      if (basket.status !== 201) {
        await sleep(50)
        continue
      }
      const order = await callServer(baseUrl(), 'POST', `/stf/v1/baskets/${basket.body.id}/checkout`, {
        headers,
        body: { payment_method: 'credit_card', installments: 1, payment_reference: randomBytes(6).toString('hex') },
      })
      answers.push({ ...order, at: Date.now() - started, what: 'checkout' })
      if (order.status === 201) orders.set(order.body.id, order.body)
    }
  }
  return { answers, orders, done: Promise.all(buyers.map(loop)) }
}

/** Every order answered 201 is in the database, with the items, tickets and totals it was answered with. */
async function expectStored(databaseUrl: string, orders: Map<string, unknown>) {
  const ids = [...orders.keys()]
  const rows = await queryDatabase<{ id: string; total: string; tickets: string[] }>(
    databaseUrl,
    `select o.id, o.total::text, array(select identifier from tickets t where t.order_id = o.id order by identifier) as tickets
       from orders o where o.id = any($1)`,
    [ids],
  )
  expect(rows).toHaveLength(ids.length)
  for (const row of rows) {
    const answered = orders.get(row.id) as { totals: { total: number }; tickets: { identifier: string }[] }
    expect(Number(row.total)).toBe(answered.totals.total)
    expect(row.tickets).toEqual(answered.tickets.map((t) => t.identifier).sort())
  }
}

describe('kill -9 of the app', () => {
  it('loses no order it answered 201, and a checkout killed midway leaves a whole order or none', async () => {
    const databaseUrl = await freshDatabase()
    servers.push(await startServer(databaseUrl))
    const { seller, event, inventory, buyers } = await shop(databaseUrl, 24)

    let killed = false
    const load = shoppers(
      () => servers[0]!.baseUrl,
      inventory.id,
      buyers,
      () => killed,
    )
    // Killed in the middle of the load, with checkouts in flight, right after some were answered.
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (load.orders.size >= 60) {
          clearInterval(poll)
          resolve()
        }
      }, 5)
    })
    servers[0]!.child.kill('SIGKILL')
    killed = true
    await servers[0]!.exited
    await load.done
    const cut = load.answers.filter((a) => a.status === 0).length

    await expectStored(databaseUrl, load.orders)
    expect(await commerceViolations(databaseUrl)).toEqual([])

    // A new process over the same database answers the same orders and the same availability.
    servers.push(await startServer(databaseUrl))
    const again = servers[1]!
    for (const [id, answered] of [...load.orders].slice(0, 20)) {
      const read = await callServer(again.baseUrl, 'GET', `/stf/v1/orders/${id}`, { headers: seller.auth })
      expect(read.status).toBe(200)
      expect(read.body).toEqual(answered)
    }
    const [db] = await queryDatabase<{ sold: number; held: number; capacity: number }>(
      databaseUrl,
      `select i.capacity, i.sold, coalesce((select sum(bi.quantity)::int from basket_items bi join baskets b on b.id = bi.basket_id
                                             where bi.inventory_id = i.id and b.status = 'open' and b.expires_at > now()), 0) as held
         from inventories i where i.id = $1`,
      [inventory.id],
    )
    const availability = await callServer(again.baseUrl, 'GET', `/stf/v1/events/${event.id}/availability`, { headers: seller.auth })
    expect(availability.body.data[0].inventories[0].available).toBe(db!.capacity - db!.sold - db!.held)
    const [{ n: stored }] = (await queryDatabase<{ n: number }>(databaseUrl, 'select count(*)::int as n from orders')) as [{ n: number }]
    console.info(
      `kill -9 of the app: ${load.answers.length} requests, ${load.orders.size} orders answered 201 all stored, ` +
        `${cut} requests cut by the kill (${stored - load.orders.size} of them committed whole before it), sold ${db!.sold}, held ${db!.held}`,
    )
  }, 90_000)
})

describe.skipIf(PgCluster.unavailable())('kill -9 of PostgreSQL (a cluster of its own)', () => {
  it('keeps every order answered 201 through crash recovery, and the app sells again without a restart', async () => {
    cluster = await PgCluster.create()
    const databaseUrl = await cluster.createDatabase('boxoffice_crash')
    servers.push(await startServer(databaseUrl, { DB_CONNECT_TIMEOUT_MS: '500', DB_STATEMENT_TIMEOUT_MS: '1000', DB_POOL_MAX: '6' }))
    const { inventory, buyers } = await shop(databaseUrl, 12)

    const started = Date.now()
    // The load runs until a sale succeeded after PostgreSQL came back (or, failing that, for a
    // long while), however long the machine takes to recover: events, not a fixed clock.
    let upAt = Number.POSITIVE_INFINITY
    const soldAfterRecovery = () => upAt !== Number.POSITIVE_INFINITY && load.answers.some((a) => a.what === 'checkout' && a.status === 201 && a.at > upAt)
    const load = shoppers(
      () => servers[0]!.baseUrl,
      inventory.id,
      buyers,
      () => soldAfterRecovery() || Date.now() - started > 60_000,
    )
    await eventually(async () => load.orders.size >= 5, 30_000, 20)
    const killedAt = Date.now() - started
    const ordersBeforeCrash = new Map(load.orders)
    const pids = await cluster.kill9()
    // PostgreSQL stays away while the load keeps coming.
    await eventually(async () => load.answers.some((a) => a.status === 503 && a.at > killedAt), 30_000, 20)
    await sleep(500)
    await cluster.start()
    upAt = Date.now() - started
    await load.done

    const statuses = countStatuses(load.answers)
    expect(pids.length).toBeGreaterThan(1)
    expect(Object.keys(statuses).sort(), JSON.stringify(statuses)).toEqual(['201', '503'])
    // Nothing hangs: a database that is away is answered 503 within the connect and statement timeouts.
    expect(Math.max(...load.answers.map((a) => a.ms))).toBeLessThan(5000)
    expect(load.answers.some((a) => a.status === 503 && a.at > killedAt && a.at < upAt)).toBe(true)
    const firstSale = load.answers.find((a) => a.what === 'checkout' && a.status === 201 && a.at > upAt)
    expect(firstSale, 'a sale after PostgreSQL came back').toBeDefined()
    expect(firstSale!.at - upAt).toBeLessThan(30_000)
    expect(servers[0]!.child.exitCode).toBeNull()

    expect(ordersBeforeCrash.size).toBeGreaterThan(0)
    await expectStored(databaseUrl, load.orders)
    expect(await commerceViolations(databaseUrl)).toEqual([])
    console.info(
      `kill -9 of PostgreSQL: ${load.answers.length} requests (${JSON.stringify(statuses)}), ${ordersBeforeCrash.size} orders answered before the crash ` +
        `and ${load.orders.size - ordersBeforeCrash.size} after, all stored; first sale ${firstSale!.at - upAt} ms after recovery`,
    )
  }, 120_000)
})
