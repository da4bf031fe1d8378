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
 * Orders awaiting payment (API.md 7.9) against real server processes over PostgreSQL: the expiry
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
 * A seller whose webhook endpoint (a receiver on 127.0.0.1) subscribes to the order events the
 * tests count, so that they are recorded; and `buyers` signed-in customers, each of its own
 * address, so that an order's email is told apart by its recipient.
 */
async function openShop(databaseUrl: string, buyers: number) {
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
  return { app, seller, buyers: headers }
}

/** A buyer's order awaiting payment, through the storefront: a basket, a coupon when named, a checkout with `await_payment`. */
async function placePending(baseUrl: string, headers: Record<string, string>, items: Item[], coupon?: string): Promise<Answer> {
  const basket = await retrying(() => callServer(baseUrl, 'POST', '/stf/v1/baskets', { headers, body: { items } }))
  if (basket.status !== 201) return basket
  if (coupon) {
    const applied = await retrying(() => callServer(baseUrl, 'POST', `/stf/v1/baskets/${basket.body.id}/coupon`, { headers, body: { code: coupon } }))
    if (applied.status !== 200) return applied
  }
  return retrying(() =>
    callServer(baseUrl, 'POST', `/stf/v1/baskets/${basket.body.id}/checkout`, { headers, body: { payment_method: 'pix', await_payment: true } }),
  )
}

/** One order per buyer, `lanes` storefront connections at once (alternating over `baseUrls`); answers the orders in buyer order. */
async function placeMany(
  baseUrls: string[],
  buyers: Record<string, string>[],
  itemsOf: (n: number) => Item[],
  options: { lanes?: number; coupon?: (n: number) => string | undefined } = {},
) {
  const placed: OrderAnswer[] = []
  let next = 0
  const lane = async (l: number) => {
    while (next < buyers.length) {
      const n = next++
      const answer = await placePending(baseUrls[l % baseUrls.length]!, buyers[n]!, itemsOf(n), options.coupon?.(n))
      expect(answer.status, JSON.stringify(answer.body)).toBe(201)
      expect(answer.body.status).toBe('pending')
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

describe('kill -9 of the server in the middle of an expiry sweep', () => {
  const DUE = 1000
  const PAID = 20
  const NOT_DUE = 20

  it('after a restart every due order expires exactly once: one order.expired, one email, its stock back once', async () => {
    const databaseUrl = await freshDatabase()
    const shop = await openShop(databaseUrl, DUE + PAID + NOT_DUE)
    const event = await createTestEvent(shop.app, shop.seller.seller.id)
    const stalls = await createTestInventory(shop.app, event, { capacity: 10_000, price: 5000 })
    const balcony = await createTestInventory(shop.app, event, { capacity: 10_000, price: 3000 })
    // A coupon limited to the uses it will have: its uses come back as its orders expire, exactly.
    const coupon = await createTestCoupon(shop.app, shop.seller.seller.id, { maxUses: DUE / 8 + PAID })
    await fixtures!.close()
    fixtures = undefined

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

    // The kill: once a batch of the due orders is expired, while the next batch is in its
    // transaction (it holds the lock SELECT … FOR UPDATE takes on the orders table, which nothing
    // else takes now). Events, not a clock: a connection of its own watches the orders and locks.
    const ids = due.map((o) => o.id)
    const watch = new pg.Client({ connectionString: databaseUrl })
    await watch.connect()
    let expiredAtKill = 0
    try {
      await makeDue(databaseUrl, ids)
      await eventually(
        async () => {
          const { rows } = await watch.query<{ expired: number; sweeping: boolean }>(
            `select (select count(*)::int from orders where id = any($1) and status = 'expired') as expired,
                    exists (select 1 from pg_locks l where l.relation = 'orders'::regclass and l.mode = 'RowShareLock' and l.granted
                                                         and l.pid <> pg_backend_pid()) as sweeping`,
            [ids],
          )
          expiredAtKill = rows[0]!.expired
          if (expiredAtKill === 0 || !rows[0]!.sweeping) return false
          first.child.kill('SIGKILL')
          return true
        },
        60_000,
        2,
      )
    } finally {
      await watch.end()
    }
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
    const databaseUrl = await freshDatabase()
    const shop = await openShop(databaseUrl, DUE)
    const inventory = await createTestInventory(shop.app, await createTestEvent(shop.app, shop.seller.seller.id), { capacity: 10_000 })
    await fixtures!.close()
    fixtures = undefined

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
    const databaseUrl = await freshDatabase()
    const shop = await openShop(databaseUrl, 2)
    const inventory = await createTestInventory(shop.app, await createTestEvent(shop.app, shop.seller.seller.id), { capacity: 10, price: 4500 })
    const staff = await createStaff(shop.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })
    await fixtures!.close()
    fixtures = undefined
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
    const databaseUrl = await freshDatabase()
    const shop = await openShop(databaseUrl, 2 * ROUNDS)
    const staff = await createStaff(shop.app, { permissions: ['adm.catalog.read', 'adm.catalog.write'] })
    const adm = admClient(shop.app, staff.auth)
    // Each round's stock: two tickets, every other pair of rounds two seats of a plan.
    const stock: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      if (Math.floor(round / 4) % 2 === 1) {
        stock.push((await createSeatedInventory(shop.app, adm, shop.seller.seller.id, [{ category: 'Plateia', seats: 2 }])).inventory.id)
      } else stock.push((await createTestInventory(shop.app, await createTestEvent(shop.app, shop.seller.seller.id), { capacity: 2 })).id)
    }
    await fixtures!.close()
    fixtures = undefined

    // The payer's process sweeps once a minute (this test is over long before); the sweeper's every 10 ms.
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
        callServer(sweeper, 'POST', `/stf/v1/baskets/${basket.body.id}/checkout`, {
          headers,
          body: { payment_method: 'credit_card', installments: 1, payment_reference: `CARD-${basket.body.id}` },
        }),
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
