import { randomInt } from 'node:crypto'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { createWebhook } from '../../src/domain/webhooks/create-webhook.js'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createSeatedInventory } from '../factories/seating.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { admClient } from '../support/adm-client.js'
import { commerceViolations, queryDatabase } from '../support/commerce-invariants.js'
import {
  all,
  callServer,
  connectionsGone,
  countStatuses,
  freshDatabase,
  openFixtures,
  retrying,
  startServer,
  type Answer,
  type Fixtures,
} from '../support/live-server.js'
import type { ServerProcess } from '../support/server-process.js'
import { eventually } from '../support/smtp-sink.js'
import { createStaff } from '../support/staff.js'
import { WebhookReceiver } from '../support/webhook-receiver.js'

/**
 * Orders awaiting payment (docs/payments.md) against real server processes over PostgreSQL: the expiry
 * sweep killed midway or run by two processes at once, payments arriving all at once, and a
 * payment racing the sweep of another process while a third buyer wants the same stock. Whatever
 * happens, each unpaid order expires once (one `order.expired`, one email, its stock back once),
 * an order is confirmed only with its stock, and money is never recorded on an expired order.
 */
const LENIENT = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_INSECURE: 'true' }
let servers: ServerProcess[] = []
let fixtures: Fixtures | undefined
let receiver: WebhookReceiver | undefined
afterEach(async () => {
  await fixtures?.close()
  for (const server of servers) await server.stop('SIGKILL')
  await receiver?.stop()
  servers = []
  fixtures = undefined
  receiver = undefined
})

type Item = { inventory_id: string; quantity: number; seats?: string[] }
type OrderAnswer = {
  id: string
  status: string
  payment_due_at: string | null
  totals: { total: number }
  items: { inventory_id: string; quantity: number }[]
  tickets: { identifier: string; status: string }[]
}

/** The units of an order of one inventory. */
const unitsOf = (order: OrderAnswer, inventoryId: string) => order.items.filter((i) => i.inventory_id === inventoryId).reduce((sum, i) => sum + i.quantity, 0)

/**
 * A fresh database with a seller whose webhook endpoint (a receiver on 127.0.0.1) subscribes to
 * the order events the tests count, so that they are recorded; and `buyers` signed-in customers,
 * each of its own address, so that an order's email is told apart by its recipient. Set up
 * through an app in this process; `ready()` closes it and answers the database's URL for the servers.
 */
async function openShop(buyers: number) {
  const databaseUrl = await freshDatabase()
  fixtures = await openFixtures(databaseUrl, LENIENT)
  const app = fixtures.app
  receiver = await WebhookReceiver.start()
  const seller = await createTestSeller(app)
  await createWebhook(app.db, {
    sellerId: seller.seller.id,
    url: receiver.url(),
    events: ['order.expired', 'order.confirmed'],
    policy: app.config.webhooks,
    secretKey: app.secrets.webhookSecrets,
    actor: { type: 'system' },
  })
  // Four at a time (the fixtures' pool): all at once, the last would wait past its connect timeout on a busy machine.
  const headers: Record<string, string>[] = []
  while (headers.length < buyers)
    headers.push(
      ...(await Promise.all(Array.from({ length: Math.min(4, buyers - headers.length) }, async () => (await insertSignedInCustomer(app, seller)).headers))),
    )
  return {
    app,
    seller,
    buyers: headers,
    /** An inventory of a new event of the seller. */
    inventory: async (overrides: Parameters<typeof createTestInventory>[2] = {}) =>
      createTestInventory(app, await createTestEvent(app, seller.seller.id), overrides),
    ready: async () => {
      await fixtures?.close()
      fixtures = undefined
      return databaseUrl
    },
  }
}

/** A checkout awaiting payment (by pix); and one paid at once, its money captured by the partner's provider. */
const AWAITING = { payment_method: 'pix', await_payment: true }
const paidAt = (reference: string) => ({ payment_method: 'credit_card', installments: 1, payment_reference: reference })

/** A buyer's order through the storefront: a basket, a coupon when named, its checkout (awaiting payment unless told). */
async function placeOrder(baseUrl: string, headers: Record<string, string>, items: Item[], options: { coupon?: string | undefined; checkout?: object } = {}) {
  const basket = await retrying(() => callServer(baseUrl, 'POST', '/stf/v1/baskets', { headers, body: { items } }))
  if (basket.status !== 201) return basket
  if (options.coupon) {
    const applied = await retrying(() => callServer(baseUrl, 'POST', `/stf/v1/baskets/${basket.body.id}/coupon`, { headers, body: { code: options.coupon } }))
    if (applied.status !== 200) return applied
  }
  return retrying(() => callServer(baseUrl, 'POST', `/stf/v1/baskets/${basket.body.id}/checkout`, { headers, body: options.checkout ?? AWAITING }))
}

/**
 * One order per buyer, `lanes` storefront connections at once (alternating over `baseUrls`),
 * awaiting payment, or paid at once with `paid`; answers the orders in buyer order.
 */
async function placeMany(
  baseUrls: string[],
  buyers: Record<string, string>[],
  itemsOf: (n: number) => Item[],
  options: { lanes?: number; coupon?: (n: number) => string | undefined; paid?: boolean } = {},
) {
  const placed: OrderAnswer[] = []
  let next = 0
  const lane = async (l: number) => {
    while (next < buyers.length) {
      const n = next++
      const answer = await placeOrder(baseUrls[l % baseUrls.length]!, buyers[n]!, itemsOf(n), {
        coupon: options.coupon?.(n),
        ...(options.paid ? { checkout: paidAt(`CARD-${n}`) } : {}),
      })
      expect(answer.status, JSON.stringify(answer.body)).toBe(201)
      expect(answer.body.status).toBe(options.paid ? 'confirmed' : 'pending')
      placed[n] = answer.body
    }
  }
  await Promise.all(Array.from({ length: options.lanes ?? 16 }, (_, l) => lane(l)))
  return placed
}

/** Storefront payment of the whole order. */
const pay = (baseUrl: string, seller: TestSeller, order: { id: string; totals: { total: number } }, reference: string) =>
  retrying(() => callServer(baseUrl, 'POST', `/stf/v1/orders/${order.id}/payments`, { headers: seller.auth, body: { amount: order.totals.total, reference } }))

/** Moves orders' deadlines to `inMs` from now (by default a second ago): the clock the sweep reads is the database's. */
const makeDue = (databaseUrl: string, ids: string[], inMs = -1000) =>
  queryDatabase(databaseUrl, `update orders set payment_due_at = now() + make_interval(secs => $2::float8 / 1000) where id = any($1)`, [ids, inMs])

/** Per order: its status, its `order.expired` events, its buyer's expiry emails, its tickets holding stock. */
async function expiryAccount(databaseUrl: string, ids: string[]) {
  return queryDatabase<{ id: string; status: string; events: number; emails: number; live: number; tickets: number }>(
    databaseUrl,
    `select o.id, o.status,
            (select count(*)::int from webhook_events e where e.type = 'order.expired' and e.ordering_key = o.id::text) as events,
            (select count(*)::int from outbox_emails m join customers c on c.email = m."to" where c.id = o.customer_id and m.kind = 'stf.order_expired') as emails,
            (select count(*)::int from tickets t where t.order_id = o.id and t.voided_at is null) as live,
            (select count(*)::int from tickets t where t.order_id = o.id) as tickets
       from orders o where o.id = any($1)`,
    [ids],
  )
}

/** Each inventory's capacity, sold, and the tickets of its orders that hold stock (confirmed or pending, not voided). */
const stockOf = (databaseUrl: string, inventoryIds: string[]) =>
  queryDatabase<{ id: string; capacity: number; sold: number; holding: number }>(
    databaseUrl,
    `select i.id, i.capacity, i.sold,
            (select count(*)::int from tickets t join orders o on o.id = t.order_id
              where t.inventory_id = i.id and t.voided_at is null and o.status in ('confirmed', 'pending')) as holding
       from inventories i where i.id = any($1) order by i.id`,
    [inventoryIds],
  )

/**
 * Kills `server` with SIGKILL as soon as `ready` holds and one of its transactions holds orders it
 * locked: SELECT … FOR UPDATE (the sweep's batch, a payment's or a refund's order lock) takes a
 * RowShareLock on the table, which nothing else does. Events, not a clock: a connection of its
 * own watches the database every few milliseconds.
 */
async function killInTransaction(server: ServerProcess, databaseUrl: string, ready: (watch: pg.Client) => Promise<boolean>) {
  const watch = new pg.Client({ connectionString: databaseUrl })
  await watch.connect()
  try {
    await eventually(
      async () => {
        if (!(await ready(watch))) return false
        const { rows } = await watch.query<{ locking: boolean }>(
          `select exists (select 1 from pg_locks l where l.relation = 'orders'::regclass and l.mode = 'RowShareLock' and l.granted
                                                     and l.pid <> pg_backend_pid()) as locking`,
        )
        if (!rows[0]!.locking) return false
        server.child.kill('SIGKILL')
        return true
      },
      60_000,
      2,
    )
  } finally {
    await watch.end()
  }
}

describe('kill -9 of the server in the middle of an expiry sweep', () => {
  const DUE = 1000
  const PAID = 20
  const NOT_DUE = 20

  it('after a restart every due order expires exactly once: one order.expired, one email, its stock back once', async () => {
    const shop = await openShop(DUE + PAID + NOT_DUE)
    const event = await createTestEvent(shop.app, shop.seller.seller.id)
    const stalls = await createTestInventory(shop.app, event, { capacity: 10_000, price: 5000 })
    const balcony = await createTestInventory(shop.app, event, { capacity: 10_000, price: 3000 })
    // A coupon limited to the uses it will have: its uses come back as its orders expire, exactly.
    const coupon = await createTestCoupon(shop.app, shop.seller.seller.id, { maxUses: DUE / 8 + PAID })
    const databaseUrl = await shop.ready()

    // The sweep of the first process expires nothing until the test moves the deadlines.
    servers.push(await startServer(databaseUrl, { ...LENIENT, OUTBOX_POLL_MS: '50' }))
    const first = servers[0]!
    const started = performance.now()
    const orders = await placeMany(
      [first.baseUrl],
      shop.buyers,
      (n) => [{ inventory_id: stalls.id, quantity: 1 + (n % 2) }, ...(n % 3 === 0 ? [{ inventory_id: balcony.id, quantity: 1 }] : [])],
      { coupon: (n) => (n % 8 === 0 && n < DUE ? coupon.code : n >= DUE + NOT_DUE ? coupon.code : undefined) },
    )
    const placedMs = performance.now() - started
    const due = orders.slice(0, DUE)
    const notDue = orders.slice(DUE, DUE + NOT_DUE)
    const paid = orders.slice(DUE + NOT_DUE)
    for (const [n, order] of paid.entries()) expect((await pay(first.baseUrl, shop.seller, order, `PIX-${n}`)).status).toBe(201)

    // The kill: once a batch of the due orders is expired, while the next batch is in its transaction.
    const ids = due.map((o) => o.id)
    await makeDue(databaseUrl, ids)
    let expiredAtKill = 0
    await killInTransaction(first, databaseUrl, async (watch) => {
      const { rows } = await watch.query<{ n: number }>(`select count(*)::int as n from orders where id = any($1) and status = 'expired'`, [ids])
      expiredAtKill = rows[0]!.n
      return expiredAtKill > 0
    })
    await first.exited
    await connectionsGone(databaseUrl)

    // Cut midway: some orders expired whole (event, email, stock back), the rest pending whole, none half.
    const afterKill = await expiryAccount(databaseUrl, ids)
    const expiredBefore = afterKill.filter((o) => o.status === 'expired')
    expect(expiredBefore.length, `expired when killed: ${expiredAtKill} of ${DUE}`).toBeGreaterThan(0)
    expect(expiredBefore.length, 'the kill landed before the sweep was over').toBeLessThan(DUE)
    for (const order of afterKill) {
      if (order.status === 'expired') expect(order).toMatchObject({ events: 1, emails: 1, live: 0 })
      else expect(order).toMatchObject({ status: 'pending', events: 0, emails: 0, live: order.tickets })
    }
    expect(await commerceViolations(databaseUrl, { pendingOverdueSeconds: null })).toEqual([])

    // A fresh process over the same database finishes the sweep.
    servers.push(await startServer(databaseUrl, { ...LENIENT, OUTBOX_POLL_MS: '50' }))
    await eventually(
      async () =>
        (
          await queryDatabase<{ n: number }>(databaseUrl, `select count(*)::int as n from orders where id = any($1) and status = 'pending'`, [
            due.map((o) => o.id),
          ])
        )[0]!.n === 0,
      60_000,
      100,
    )
    const account = await expiryAccount(
      databaseUrl,
      orders.map((o) => o.id),
    )
    const byId = new Map(account.map((o) => [o.id, o]))
    for (const order of due) expect(byId.get(order.id)).toMatchObject({ status: 'expired', events: 1, emails: 1, live: 0 })
    for (const order of notDue) expect(byId.get(order.id)).toMatchObject({ status: 'pending', events: 0, emails: 0, live: order.tickets.length })
    for (const order of paid) expect(byId.get(order.id)).toMatchObject({ status: 'confirmed', events: 0, emails: 0, live: order.tickets.length })
    const [events] = await queryDatabase<{ n: number }>(databaseUrl, `select count(*)::int as n from webhook_events where type = 'order.expired'`)
    expect(events!.n).toBe(DUE)

    // Stock back exactly: sold = the tickets of the orders still holding it, the paid and the not yet due;
    // and the coupon's uses, those of the paid orders.
    for (const row of await stockOf(databaseUrl, [stalls.id, balcony.id])) {
      expect(row.sold).toBe(row.holding)
      expect(row.sold).toBe([...notDue, ...paid].reduce((sum, order) => sum + unitsOf(order, row.id), 0))
    }
    const [uses] = await queryDatabase<{ uses: number }>(databaseUrl, 'select uses from coupons where id = $1', [coupon.id])
    expect(uses!.uses).toBe(PAID)
    expect(await commerceViolations(databaseUrl)).toEqual([])
    console.info(
      `expiry kill: ${DUE + PAID + NOT_DUE} orders placed in ${Math.round(placedMs)} ms; killed in a sweep's transaction with ${expiredAtKill} of ${DUE} due orders expired, ${expiredBefore.length} once its connections were gone, the rest by the next process`,
    )
  }, 420_000)
})

describe('two server processes sweeping the same due orders at once', () => {
  const DUE = 600

  it('each order expires once, by one of them: one order.expired, one email, its stock back once', async () => {
    const shop = await openShop(DUE)
    const inventory = await shop.inventory({ capacity: 10_000 })
    const databaseUrl = await shop.ready()

    // At level info each process logs what each sweep of its own expired, which tells who did what.
    const env = { ...LENIENT, OUTBOX_POLL_MS: '50', LOG_LEVEL: 'info' }
    servers.push(await startServer(databaseUrl, env), await startServer(databaseUrl, env))
    const orders = await placeMany(
      servers.map((s) => s.baseUrl),
      shop.buyers,
      (n) => [{ inventory_id: inventory.id, quantity: 1 + (n % 3) }],
    )
    const ids = orders.map((o) => o.id)
    await makeDue(databaseUrl, ids)
    await eventually(
      async () =>
        (await queryDatabase<{ n: number }>(databaseUrl, `select count(*)::int as n from orders where id = any($1) and status = 'pending'`, [ids]))[0]!.n === 0,
      60_000,
      100,
    )

    for (const order of await expiryAccount(databaseUrl, ids)) expect(order).toMatchObject({ status: 'expired', events: 1, emails: 1, live: 0 })
    const [events] = await queryDatabase<{ n: number }>(databaseUrl, `select count(*)::int as n from webhook_events where type = 'order.expired'`)
    expect(events!.n).toBe(DUE)
    const [stock] = await stockOf(databaseUrl, [inventory.id])
    expect(stock).toMatchObject({ sold: 0, holding: 0 })
    expect(await commerceViolations(databaseUrl)).toEqual([])

    // Both swept, and what they expired adds up to the due orders: none twice, none left.
    const expiredBy = servers.map((server) => sweptOrders(server.output()))
    expect(
      expiredBy.every((n) => n > 0),
      `orders expired by each process: ${expiredBy.join(', ')}`,
    ).toBe(true)
    expect(expiredBy[0]! + expiredBy[1]!).toBe(DUE)
    console.info(`two sweepers: ${DUE} due orders expired, ${expiredBy.join(' and ')} by each process`)
  }, 300_000)
})

/** The orders a process's sweeps expired, from its log lines at level info (`orders expired unpaid`). */
function sweptOrders(output: string): number {
  let total = 0
  for (const line of output.split('\n')) {
    if (!line.includes('orders expired unpaid')) continue
    total += (JSON.parse(line) as { orders: number }).orders
  }
  return total
}

describe('50 payments of one order at once, against a live server', () => {
  it('with different references: one 201, the rest 409 order_paid; with one reference: one payment, answered to all', async () => {
    const shop = await openShop(2)
    const inventory = await shop.inventory({ capacity: 10, price: 4500 })
    const staff = await createStaff(shop.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })
    const databaseUrl = await shop.ready()
    servers.push(await startServer(databaseUrl, { ...LENIENT }))
    const base = servers[0]!.baseUrl
    const [first, second] = await placeMany([base], shop.buyers, () => [{ inventory_id: inventory.id, quantity: 2 }], { lanes: 1 })

    // Half through the storefront (the partner's provider), half through the back office (money the seller took itself).
    const payAt = (order: OrderAnswer, n: number, reference: string) =>
      retrying(() =>
        callServer(base, 'POST', `${n % 2 ? '/adm' : '/stf'}/v1/orders/${order.id}/payments`, {
          headers: n % 2 ? staff.auth : shop.seller.auth,
          body: { amount: order.totals.total, reference },
        }),
      )
    const different = await all(50, (n) => payAt(first!, n, `PIX-${n}`))
    expect(countStatuses(different)).toEqual({ 201: 1, 409: 49 })
    for (const refused of different.filter((a) => a.status === 409)) expect(refused.body.code).toBe('order_paid')

    const same = await all(50, (n) => payAt(second!, n, 'PIX-ONCE'))
    expect(countStatuses(same)).toEqual({ 200: 49, 201: 1 })
    expect(new Set(same.map((a) => a.body.id)).size).toBe(1)

    const rows = await queryDatabase<{ id: string; status: string; payments: number; money_rows: number; sale_rows: number; confirmed_events: number }>(
      databaseUrl,
      `select o.id, o.status,
              (select count(*)::int from payments p where p.order_id = o.id) as payments,
              (select count(*)::int from transactions x where x.order_id = o.id and x.kind = 'payment') as money_rows,
              (select count(*)::int from transactions x where x.order_id = o.id and x.kind = 'sale') as sale_rows,
              (select count(*)::int from webhook_events e where e.type = 'order.confirmed' and e.ordering_key = o.id::text) as confirmed_events
         from orders o order by o.created_at`,
    )
    for (const row of rows) expect(row).toMatchObject({ status: 'confirmed', payments: 1, money_rows: 1, sale_rows: 1, confirmed_events: 1 })
    const [stock] = await stockOf(databaseUrl, [inventory.id])
    expect(stock).toMatchObject({ sold: 4, holding: 4 })
    expect(await commerceViolations(databaseUrl)).toEqual([])
  }, 180_000)
})

describe('a payment racing the expiry sweep of another process, a third buyer after the same stock', () => {
  const ROUNDS = 24

  it('never confirms an order whose stock was given away, never records money on an expired order', async () => {
    const shop = await openShop(2 * ROUNDS)
    const staff = await createStaff(shop.app, { permissions: ['adm.catalog.read', 'adm.catalog.write'] })
    const adm = admClient(shop.app, staff.auth)
    // Each round's stock: two tickets; in every other four rounds (one of each kind), the two seats of a plan.
    const stock: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      if (Math.floor(round / 4) % 2 === 1) {
        stock.push((await createSeatedInventory(shop.app, adm, shop.seller.seller.id, [{ category: 'Plateia', seats: 2 }])).inventory.id)
      } else stock.push((await shop.inventory({ capacity: 2 })).id)
    }
    const databaseUrl = await shop.ready()

    // The payer's process sweeps once a minute (the longest OUTBOX_POLL_MS), the sweeper's every 10 ms: the payments race another process's sweep.
    servers.push(await startServer(databaseUrl, { ...LENIENT, OUTBOX_POLL_MS: '60000' }), await startServer(databaseUrl, { ...LENIENT, OUTBOX_POLL_MS: '10' }))
    const [payer, sweeper] = servers.map((s) => s.baseUrl) as [string, string]
    const statusOf = async (orderId: string) =>
      (await queryDatabase<{ status: string }>(databaseUrl, 'select status from orders where id = $1', [orderId]))[0]!.status

    /** The third buyer: a basket of `quantity` on the sweeper's process, checked out paid at once; null: the stock was not there. */
    const thiefBuys = async (headers: Record<string, string>, inventoryId: string, quantity: number) => {
      const basket = await retrying(() =>
        callServer(sweeper, 'POST', '/stf/v1/baskets', { headers, body: { items: [{ inventory_id: inventoryId, quantity }] } }),
      )
      if (basket.status === 409) return null
      expect(basket.status, JSON.stringify(basket.body)).toBe(201)
      const order = await retrying(() =>
        callServer(sweeper, 'POST', `/stf/v1/baskets/${basket.body.id}/checkout`, { headers, body: paidAt(`CARD-${basket.body.id}`) }),
      )
      expect(order.status, JSON.stringify(order.body)).toBe(201)
      return order.body as OrderAnswer
    }

    const outcomes: Record<string, number> = {}
    for (let round = 0; round < ROUNDS; round++) {
      // 0: the payment races the sweep; 1: the same, the third buyer after the stock meanwhile;
      // 2: paid once expired (a reactivation); 3: paid once expired and its stock taken.
      const kind = round % 4
      const inventoryId = stock[round]!
      const wanted = 1 + (round % 2)
      const [order] = await placeMany([payer], [shop.buyers[2 * round]!], () => [{ inventory_id: inventoryId, quantity: 2 }], { lanes: 1 })
      // Racing, the deadline falls a few milliseconds either side of the payment's arrival, so that either may come first.
      await makeDue(databaseUrl, [order!.id], kind < 2 ? 40 * (round % 6) : -1000)
      let thief: OrderAnswer | null = null
      if (kind >= 2) await eventually(async () => (await statusOf(order!.id)) === 'expired', 30_000, 10)
      if (kind === 3) {
        thief = await thiefBuys(shop.buyers[2 * round + 1]!, inventoryId, wanted)
        expect(thief, 'the stock of an expired order is on sale').not.toBeNull()
      }
      let answered = false
      const payment = (async () => {
        const answer = await pay(payer, shop.seller, order!, `PIX-${round}`)
        answered = true
        return answer
      })()
      if (kind === 1) {
        // Asks for the stock until it gets it or the payment is answered, then once more.
        for (;;) {
          const last = answered
          thief = await thiefBuys(shop.buyers[2 * round + 1]!, inventoryId, wanted)
          if (thief || last) break
        }
      }
      const paid = await payment

      const [row] = await queryDatabase<{ status: string; payments: number; live: number; reactivated: number }>(
        databaseUrl,
        `select o.status, (select count(*)::int from payments p where p.order_id = o.id) as payments,
                (select count(*)::int from tickets t where t.order_id = o.id and t.voided_at is null) as live,
                (select count(*)::int from audit_log a where a.target_id = o.id and a.action = 'order.reactivated_paid') as reactivated
           from orders o where o.id = $1`,
        [order!.id],
      )
      const [inventory] = await stockOf(databaseUrl, [inventoryId])
      expect(inventory!.sold).toBe(inventory!.holding)
      expect(inventory!.sold).toBeLessThanOrEqual(inventory!.capacity)
      if (paid.status === 201) {
        // Confirmed with all its tickets, none of them given to the third buyer.
        expect(row).toMatchObject({ status: 'confirmed', payments: 1, live: 2 })
        expect(thief, `round ${round}: the third buyer got stock of an order then paid`).toBeNull()
        outcomes[row!.reactivated ? 'reactivated' : 'paid in time'] = (outcomes[row!.reactivated ? 'reactivated' : 'paid in time'] ?? 0) + 1
      } else {
        // Refused, recording nothing: only because the third buyer took the stock.
        expect(paid.status, JSON.stringify(paid.body)).toBe(409)
        expect(paid.body.code).toBe('order_expired')
        expect(row).toMatchObject({ status: 'expired', payments: 0, live: 0 })
        expect(thief, `round ${round}: refused while the stock was free`).not.toBeNull()
        outcomes.refused = (outcomes.refused ?? 0) + 1
      }
      if (kind === 2) expect(row).toMatchObject({ status: 'confirmed', reactivated: 1 })
      if (kind === 3) expect(paid.status).toBe(409)
    }
    expect(await commerceViolations(databaseUrl)).toEqual([])
    console.info(`payment against the sweep, ${ROUNDS} rounds: ${JSON.stringify(outcomes)}`)
  }, 300_000)
})

describe('kill -9 of the server while refunds are in flight', () => {
  const ORDERS = 60

  it('leaves no refund half-written: its tickets voided (in the ledger too), its money row once done; a fresh server refunds the rest', async () => {
    const shop = await openShop(ORDERS)
    const inventory = await shop.inventory({ capacity: 10_000, price: 5000 })
    const staff = await createStaff(shop.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })
    const databaseUrl = await shop.ready()

    servers.push(await startServer(databaseUrl, LENIENT))
    const first = servers[0]!
    const orders = await placeMany([first.baseUrl], shop.buyers, () => [{ inventory_id: inventory.id, quantity: 3 }], { lanes: 8, paid: true })

    // Each order of 15,000 gets four refunds at once, 20,000 in all: a ticket's, done at once;
    // another ticket's, pending; and two naming no tickets, done and pending, either of which ends
    // the order when it is of everything left. Which are refused depends on their order of arrival.
    const requests = orders.flatMap((order, n) =>
      [
        { amount: 4000, tickets: [order.tickets[0]!.identifier], reason: 'seat broken', reference: `RF-${n}-a` },
        { amount: 5000, tickets: [order.tickets[1]!.identifier], reason: 'cannot come' },
        { amount: 1000, reason: 'goodwill', reference: `RF-${n}-c` },
        { amount: 10_000, reason: 'most of it' },
      ].map((body) => ({ orderId: order.id, body })),
    )
    // Shuffled, so that an order's four refunds overlap in every order of arrival.
    for (let i = requests.length - 1; i > 0; i--) {
      const j = randomInt(i + 1)
      ;[requests[i], requests[j]] = [requests[j]!, requests[i]!]
    }

    // The kill: once half the refunds are answered, while refunds are in their transactions.
    const answered = new Map<string, { status: string; order_id: string; tickets: string[] }>()
    const answers: Answer[] = []
    let killed = false
    let next = 0
    const lanes = Promise.all(
      Array.from({ length: 24 }, async () => {
        while (!killed && next < requests.length) {
          const { orderId, body } = requests[next++]!
          const answer = await retrying(() => callServer(first.baseUrl, 'POST', `/adm/v1/orders/${orderId}/refunds`, { headers: staff.auth, body }))
          answers.push(answer)
          if (answer.status === 201) answered.set(answer.body.id, answer.body)
        }
      }),
    )
    await killInTransaction(first, databaseUrl, async () => answers.length >= requests.length / 2)
    killed = true
    await lanes
    await first.exited
    await connectionsGone(databaseUrl)

    const statuses = countStatuses(answers)
    for (const status of Object.keys(statuses)) expect(['0', '201', '409'], JSON.stringify(statuses)).toContain(status)
    for (const refused of answers.filter((a) => a.status === 409)) expect(['refund_exceeds_paid', 'ticket_voided']).toContain(refused.body.code)
    expect(statuses[0] ?? 0, `refunds cut by the kill (${JSON.stringify(statuses)})`).toBeGreaterThan(0)

    // Every refund answered is stored as answered, and only those the kill cut besides. Each one
    // stored is whole: the tickets it names voided, and voided in the ledger (its item's sale and
    // voids count the valid tickets); its money row when done, none while pending.
    const stored = await queryDatabase<{ id: string; status: string; order_id: string; named: number; voided: number; money_rows: number }>(
      databaseUrl,
      `select r.id, r.status, r.order_id, jsonb_array_length(r.tickets) as named,
              (select count(*)::int from jsonb_array_elements_text(r.tickets) as n(identifier)
                 join tickets t on t.order_id = r.order_id and t.identifier = n.identifier and t.voided_at is not null) as voided,
              (select count(*)::int from transactions x where x.refund_id = r.id and x.kind = 'refund' and x.amount = -r.amount) as money_rows
         from refunds r`,
    )
    const storedById = new Map(stored.map((r) => [r.id, r]))
    for (const [id, refund] of answered) expect(storedById.get(id)).toMatchObject({ status: refund.status, order_id: refund.order_id })
    expect(stored.length - answered.size).toBeLessThanOrEqual(statuses[0] ?? 0)
    for (const refund of stored) {
      expect(refund.voided, JSON.stringify(refund)).toBe(refund.named)
      expect(refund.money_rows, JSON.stringify(refund)).toBe(refund.status === 'done' ? 1 : 0)
    }
    expect(await commerceViolations(databaseUrl)).toEqual([])

    // A fresh process: each pending refund confirmed twice at once (one confirmation), then what
    // is left refunded and every order ended: all paid, all refunded, every ticket back on sale.
    servers.push(await startServer(databaseUrl, LENIENT))
    const second = servers[1]!.baseUrl
    const pending = stored.filter((r) => r.status === 'pending').map((r) => r.id)
    const confirmations = await all(pending.length * 2, (n) =>
      retrying(() =>
        callServer(second, 'POST', `/adm/v1/refunds/${pending[n % pending.length]}/confirm`, {
          headers: staff.auth,
          body: { reference: `DONE-${n % pending.length}` },
        }),
      ),
    )
    expect(countStatuses(confirmations)).toEqual(pending.length > 0 ? { 200: pending.length * 2 } : {})
    const open = await queryDatabase<{ id: string; status: string; left: number }>(
      databaseUrl,
      `select id, status, (paid_total - refunded_total)::int as left from orders where status <> 'cancelled' or paid_total > refunded_total`,
    )
    for (const order of open) {
      const ended =
        order.left > 0
          ? await callServer(second, 'POST', `/adm/v1/orders/${order.id}/refunds`, {
              headers: staff.auth,
              body: { amount: order.left, reason: 'closing', reference: `END-${order.id}` },
            })
          : await callServer(second, 'POST', `/adm/v1/orders/${order.id}/cancel`, { headers: staff.auth })
      expect(ended.status, JSON.stringify(ended.body)).toBe(order.left > 0 ? 201 : 200)
    }
    const ends = await queryDatabase<{ status: string; paid_total: number; refunded_total: number; live: number }>(
      databaseUrl,
      `select o.status, o.paid_total::int, o.refunded_total::int,
              (select count(*)::int from tickets t where t.order_id = o.id and t.voided_at is null) as live
         from orders o`,
    )
    expect(ends).toHaveLength(ORDERS)
    for (const end of ends) expect(end).toEqual({ status: 'cancelled', paid_total: 15_000, refunded_total: 15_000, live: 0 })
    const [stock] = await stockOf(databaseUrl, [inventory.id])
    expect(stock).toMatchObject({ sold: 0, holding: 0 })
    expect(await commerceViolations(databaseUrl)).toEqual([])
    console.info(
      `refunds killed midway: ${requests.length} refunds, ${JSON.stringify(statuses)} before the kill; ${stored.length} stored ` +
        `(${stored.length - answered.size} unanswered), ${pending.length} pending confirmed by the next process, ${open.length} orders ended by it`,
    )
  }, 300_000)
})

describe('50 refunds of one order at once, against a live server', () => {
  it('never add up to more than was paid, done or pending', async () => {
    const shop = await openShop(2)
    const inventory = await shop.inventory({ capacity: 100, price: 2500 })
    const staff = await createStaff(shop.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })
    const databaseUrl = await shop.ready()
    servers.push(await startServer(databaseUrl, LENIENT))
    const base = servers[0]!.baseUrl
    const [parts, whole] = await placeMany([base], shop.buyers, () => [{ inventory_id: inventory.id, quantity: 4 }], { lanes: 1, paid: true })
    const refund = (orderId: string, body: object) =>
      retrying(() => callServer(base, 'POST', `/adm/v1/orders/${orderId}/refunds`, { headers: staff.auth, body }))

    // 10,000 paid; 50 refunds of 300, half done at once, half pending: 33 fit.
    const partly = await all(50, (n) => refund(parts!.id, { amount: 300, reason: `part ${n}`, ...(n % 2 ? { reference: `RF-${n}` } : {}) }))
    expect(countStatuses(partly)).toEqual({ 201: 33, 409: 17 })
    for (const refused of partly.filter((a) => a.status === 409)) expect(refused.body.code).toBe('refund_exceeds_paid')

    // 10,000 paid; 50 refunds of all of it at once: one, which ends the order.
    const wholly = await all(50, (n) => refund(whole!.id, { amount: 10_000, reason: `all ${n}`, ...(n % 2 ? { reference: `RF-W-${n}` } : {}) }))
    expect(countStatuses(wholly)).toEqual({ 201: 1, 409: 49 })
    for (const refused of wholly.filter((a) => a.status === 409)) expect(refused.body.code).toBe('refund_exceeds_paid')

    const money = await queryDatabase<{ id: string; status: string; paid_total: number; promised: number; refunds: number }>(
      databaseUrl,
      `select o.id, o.status, o.paid_total::int, (select coalesce(sum(amount), 0)::int from refunds r where r.order_id = o.id) as promised,
              (select count(*)::int from refunds r where r.order_id = o.id) as refunds
         from orders o`,
    )
    expect(money.find((o) => o.id === parts!.id)).toMatchObject({ status: 'confirmed', paid_total: 10_000, promised: 9900, refunds: 33 })
    expect(money.find((o) => o.id === whole!.id)).toMatchObject({ status: 'cancelled', paid_total: 10_000, promised: 10_000, refunds: 1 })
    expect(await commerceViolations(databaseUrl)).toEqual([])
  })
})
