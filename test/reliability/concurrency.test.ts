import { randomBytes, randomInt } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestCustomer } from '../factories/customers.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { createTestPlan } from '../factories/seating.js'
import { commerceViolations, queryDatabase } from '../support/commerce-invariants.js'
import { all, callServer, countStatuses, freshDatabase, openFixtures, retrying, startServer, type Answer, type Fixtures } from '../support/live-server.js'
import type { ServerProcess } from '../support/server-process.js'
import { asAdmin, type TestStaff } from '../support/staff.js'

/**
 * Races at scale against a real server process on PostgreSQL: many requests at once on one
 * scarce inventory, one coupon with a usage limit, one single-use token, one email; baskets
 * that lock the same inventories in opposite orders. Nothing is sold or used twice, and
 * nothing answers 5xx (a deadlock would be a 500).
 */
let databaseUrl: string
let server: ServerProcess
let fx: Fixtures
let seller: TestSeller
let admin: TestStaff
const tally = { requests: 0, statuses: {} as Record<number, number>, retries: 0 }

beforeAll(async () => {
  databaseUrl = await freshDatabase()
  // The outbox worker waits a minute before its first pass, so that emailed tokens can be read from the outbox.
  server = await startServer(databaseUrl, { OUTBOX_POLL_MS: '60000', DB_POOL_MAX: '10' })
  fx = await openFixtures(databaseUrl)
  seller = await createTestSeller(fx.app)
  admin = await asAdmin(fx.app)
}, 60_000)

afterAll(async () => {
  await fx?.close()
  const code = await server?.stop('SIGTERM')
  console.info(
    `concurrency: ${tally.requests} requests against one server process, final answers ${JSON.stringify(tally.statuses)}, ` +
      `${tally.retries} fast 503s under bursts retried`,
  )
  expect(code).toBe(0)
})

/** A call as a well-behaved client makes it: a 503 (load shed, nothing written) is retried after its Retry-After. */
async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  const answer = await retrying(() => callServer(server.baseUrl, method, path, { headers, ...(body === undefined ? {} : { body }) }), tally)
  tally.requests++
  tally.statuses[answer.status] = (tally.statuses[answer.status] ?? 0) + 1
  return answer
}

/** Customers of the seller, signed in (inserted directly: no argon2 work for the crowd). */
async function crowd(count: number) {
  return Promise.all(Array.from({ length: count }, () => insertSignedInCustomer(fx.app, seller)))
}

const items = (...pairs: [string, number][]) => ({ items: pairs.map(([inventory_id, quantity]) => ({ inventory_id, quantity })) })

async function expectConsistent() {
  expect(await commerceViolations(databaseUrl)).toEqual([])
}

const outboxToken = async (to: string) => {
  const [row] = await queryDatabase<{ text: string }>(databaseUrl, `select text from outbox_emails where "to" = $1 order by created_at desc limit 1`, [to])
  return decodeURIComponent(/[?&]token=([A-Za-z0-9_%-]+)/.exec(row!.text)![1]!)
}

describe('one scarce inventory', () => {
  it('300 baskets at once for 30 tickets: exactly 30 hold one, then each is checked out exactly once', async () => {
    const event = await createTestEvent(fx.app, seller.seller.id)
    const inventory = await createTestInventory(fx.app, event, { capacity: 30 })
    const opened = await all(300, () => call('POST', '/stf/v1/baskets', seller.auth, items([inventory.id, 1])))
    expect(countStatuses(opened)).toEqual({ 201: 30, 409: 270 })
    for (const refused of opened.filter((a) => a.status === 409)) expect(refused.body.code).toBe('insufficient_inventory')

    const availability = await call('GET', `/stf/v1/events/${event.id}/availability`, seller.auth)
    expect(availability.body.data[0].inventories[0].available).toBe(0)

    // Each basket checked out twice at once by its customer: one order each, never two.
    const baskets = opened.filter((a) => a.status === 201).map((a) => a.body.id as string)
    const buyers = await crowd(30)
    const checkouts = await all(60, (n) => call('POST', `/stf/v1/baskets/${baskets[n % 30]}/checkout`, buyers[n % 30]!.headers, { payment_method: 'pix' }))
    expect(countStatuses(checkouts)).toEqual({ 201: 30, 409: 30 })
    for (const second of checkouts.filter((a) => a.status === 409)) expect(second.body.code).toBe('basket_checked_out')
    const tickets = checkouts.filter((a) => a.status === 201).flatMap((a) => a.body.tickets.map((t: { identifier: string }) => t.identifier))
    expect(new Set(tickets).size).toBe(30)
    const [row] = await queryDatabase<{ sold: number }>(databaseUrl, 'select sold from inventories where id = $1', [inventory.id])
    expect(row!.sold).toBe(30)
    await expectConsistent()
  })

  it('baskets racing capacity cuts in the back office: never more held and sold than the capacity', async () => {
    const event = await createTestEvent(fx.app, seller.seller.id)
    const inventory = await createTestInventory(fx.app, event, { capacity: 60 })
    const answers = await all(200, (n) =>
      n % 10 === 0
        ? call('PUT', `/adm/v1/inventories/${inventory.id}`, admin.auth, { capacity: 20 + randomInt(40) })
        : call('POST', '/stf/v1/baskets', seller.auth, items([inventory.id, 1 + randomInt(3)])),
    )
    const statuses = countStatuses(answers)
    expect(
      Object.keys(statuses)
        .map(Number)
        .every((s) => [200, 201, 409].includes(s)),
      JSON.stringify(statuses),
    ).toBe(true)
    expect(statuses[201]).toBeGreaterThan(0)
    await expectConsistent()
  })
})

describe('one seated inventory', () => {
  it('named and best-available holds, re-picks, checkouts and cancellations all at once: one holder per seat, one valid ticket per seat', async () => {
    const plan = await createTestPlan(
      fx.app,
      seller.seller.id,
      Array.from({ length: 6 }, () => ({ category: 'Plateia', seats: 10, aisleAfter: [5] })),
    )
    const event = await createTestEvent(fx.app, seller.seller.id)
    const inventory = await createTestInventory(fx.app, event, { capacity: 60, seatingPlanId: plan.id, seatingCategory: 'Plateia' })
    const buyers = await crowd(60)
    const seat = (n: number) => `${String.fromCharCode(65 + (n % 6))}${1 + (n % 10)}`
    const ask = (n: number) =>
      n % 3 === 0
        ? { items: [{ inventory_id: inventory.id, seats: [seat(n), seat(n + 7)] }] }
        : { items: [{ inventory_id: inventory.id, quantity: 1 + (n % 3), together: n % 2 === 0 }] }
    const created = await all(60, (n) => call('POST', '/stf/v1/baskets', buyers[n]!.headers, ask(n)))
    const open = created.map((a, n) => [a, n] as const).filter(([a]) => a.status === 201)
    expect(open.length).toBeGreaterThan(10)
    const storm = await all(open.length * 2, (k) => {
      const [basket, n] = open[k % open.length]!
      if (k < open.length) return call('PATCH', `/stf/v1/baskets/${basket.body.id}/items`, buyers[n]!.headers, ask(n + 1))
      return call('POST', `/stf/v1/baskets/${basket.body.id}/checkout`, buyers[n]!.headers, { payment_method: 'pix' })
    })
    const placed = storm.filter((a) => a.status === 201).map((a) => a.body.id as string)
    const late = await all(placed.length + 20, (k) =>
      k < placed.length
        ? call('POST', `/adm/v1/orders/${placed[k]}/cancel`, admin.auth)
        : call('POST', '/stf/v1/baskets', buyers[k - placed.length]!.headers, ask(k)),
    )
    const everything = [...created, ...storm, ...late]
    const counts = countStatuses(everything)
    expect(
      Object.keys(counts)
        .map(Number)
        .every((status) => status < 500),
      JSON.stringify(counts),
    ).toBe(true)
    const refusals = everything.filter((a) => a.status === 409).map((a) => a.body.code as string)
    expect(
      new Set(refusals).size === 0 ||
        [...new Set(refusals)].every((code) => ['seat_unavailable', 'insufficient_inventory', 'seats_not_together'].includes(code)),
    ).toBe(true)
    await expectConsistent()
  }, 120_000)
})

describe('parties on a nearly full row', () => {
  it('100 parties of 2 to 6 at once, half naming overlapping seats, half best available: each whole or nothing, one holder per seat', async () => {
    const plan = await createTestPlan(fx.app, seller.seller.id, [{ category: 'Plateia', seats: 60 }])
    const event = await createTestEvent(fx.app, seller.seller.id)
    const variants = [
      { name: 'Inteira', description: '', type: 'full' },
      { name: 'Meia-entrada', description: '', type: 'half', price: 2500 },
    ]
    const inventory = await createTestInventory(fx.app, event, { capacity: 60, seatingPlanId: plan.id, seatingCategory: 'Plateia', variants })
    // Every third seat taken first: free pairs between them, and a free run of 15 at the end.
    const taken = Array.from({ length: 45 }, (_, n) => n + 1).filter((n) => n % 3 === 0)
    const first = await call('POST', '/stf/v1/baskets', seller.auth, { items: [{ inventory_id: inventory.id, seats: taken.map((n) => `A${n}`) }] })
    expect(first.status).toBe(201)
    const party = (n: number) => {
      const size = 2 + (n % 5)
      const full = Math.ceil(size / 2)
      if (n % 2 === 0) return [full, size - full].map((quantity, v) => ({ inventory_id: inventory.id, variant: variants[v]!.name, quantity }))
      const start = 40 + (n % 15)
      const seats = Array.from({ length: size }, (_, k) => `A${Math.min(start + k, 60 - size + 1 + k)}`)
      return [seats.slice(0, full), seats.slice(full)].map((named, v) => ({ inventory_id: inventory.id, variant: variants[v]!.name, seats: named }))
    }
    const answers = await all(100, (n) => call('POST', '/stf/v1/baskets', seller.auth, { items: party(n) }))
    const refusals = answers.filter((a) => a.status !== 201)
    expect(
      refusals.every((a) => a.status === 409 && ['seat_unavailable', 'seats_not_together', 'insufficient_inventory'].includes(a.body.code)),
      JSON.stringify(countStatuses(answers)),
    ).toBe(true)
    const won = answers.filter((a) => a.status === 201)
    expect(won.length).toBeGreaterThan(0)
    for (const basket of won) {
      const numbers = (basket.body.items as { quantity: number; seats: { id: string }[] }[]).flatMap((item) => {
        expect(item.seats).toHaveLength(item.quantity)
        return item.seats.map((seat) => Number(seat.id.slice(1)))
      })
      // A party sits as one block, dealt in its items' order.
      expect(numbers).toEqual(numbers.map((_, k) => numbers[0]! + k))
    }
    const held = await queryDatabase<{ seat: string; baskets: number }>(
      databaseUrl,
      `select u.seat, count(*)::int as baskets from basket_items bi cross join lateral unnest(bi.seats) as u(seat)
        where bi.inventory_id = $1 and bi.held_until > now() group by u.seat`,
      [inventory.id],
    )
    expect(held.filter((row) => row.baskets > 1)).toEqual([])
    const answered = won.flatMap((a) => (a.body.items as { seats: { id: string }[] }[]).flatMap((item) => item.seats.map((seat) => seat.id)))
    expect(held.map((row) => row.seat).sort()).toEqual([...taken.map((n) => `A${n}`), ...answered].sort())
    await expectConsistent()
  })
})

describe('one coupon with a usage limit', () => {
  it('40 checkouts at once with a coupon good for 5: exactly 5 are discounted, the rest refused', async () => {
    const event = await createTestEvent(fx.app, seller.seller.id)
    const inventory = await createTestInventory(fx.app, event, { capacity: 1000, price: 10_000 })
    const coupon = await createTestCoupon(fx.app, seller.seller.id, { maxUses: 5, value: 10 })
    const buyers = await crowd(40)
    const baskets = await all(40, (n) => call('POST', '/stf/v1/baskets', buyers[n]!.headers, items([inventory.id, 1])))
    const applied = await all(40, (n) => call('POST', `/stf/v1/baskets/${baskets[n]!.body.id}/coupon`, buyers[n]!.headers, { code: coupon.code }))
    expect(countStatuses(applied)).toEqual({ 200: 40 })
    const checkouts = await all(40, (n) => call('POST', `/stf/v1/baskets/${baskets[n]!.body.id}/checkout`, buyers[n]!.headers, { payment_method: 'pix' }))
    expect(countStatuses(checkouts)).toEqual({ 201: 5, 422: 35 })
    for (const order of checkouts.filter((a) => a.status === 201)) expect(order.body.totals.discount).toBe(1000)
    for (const refused of checkouts.filter((a) => a.status === 422)) expect(refused.body.code).toBe('coupon_exhausted')
    const [row] = await queryDatabase<{ uses: number }>(databaseUrl, 'select uses from coupons where id = $1', [coupon.id])
    expect(row!.uses).toBe(5)
    await expectConsistent()
  })

  it('10 checkouts at once by one customer with a coupon good once per customer: exactly one', async () => {
    const event = await createTestEvent(fx.app, seller.seller.id)
    const inventory = await createTestInventory(fx.app, event, { capacity: 1000 })
    const coupon = await createTestCoupon(fx.app, seller.seller.id, { maxUsesPerCustomer: 1 })
    const [buyer] = await crowd(1)
    const baskets = await all(10, () => call('POST', '/stf/v1/baskets', buyer!.headers, items([inventory.id, 1])))
    for (const basket of baskets)
      expect((await call('POST', `/stf/v1/baskets/${basket.body.id}/coupon`, buyer!.headers, { code: coupon.code })).status).toBe(200)
    const checkouts = await all(10, (n) => call('POST', `/stf/v1/baskets/${baskets[n]!.body.id}/checkout`, buyer!.headers, { payment_method: 'pix' }))
    expect(countStatuses(checkouts)).toEqual({ 201: 1, 422: 9 })
    await expectConsistent()
  })
})

describe('one single-use token, presented many times at once', () => {
  it('customer refresh token: one new pair, and the family is then revoked', async () => {
    const customer = await createTestCustomer(fx.app, seller)
    const answers = await all(30, () => call('POST', '/stf/v1/auth/refresh', seller.auth, { refresh_token: customer.refreshToken }))
    expect(countStatuses(answers)).toEqual({ 200: 1, 401: 29 })
    const winner = answers.find((a) => a.status === 200)!
    expect((await call('POST', '/stf/v1/auth/refresh', seller.auth, { refresh_token: winner.body.refresh_token })).status).toBe(401)
  })

  it('customer reset, magic-link and verification tokens: exactly one success each', async () => {
    const customer = await createTestCustomer(fx.app, seller)
    const email = customer.customer.email
    expect((await call('POST', '/stf/v1/auth/forgot-password', seller.auth, { email })).status).toBe(200)
    const reset = await outboxToken(email)
    const passwords = Array.from({ length: 20 }, () => `new-${randomBytes(8).toString('hex')}`)
    const resets = await all(20, (n) => call('POST', '/stf/v1/auth/reset-password', seller.auth, { token: reset, password: passwords[n] }))
    expect(countStatuses(resets)).toEqual({ 200: 1, 401: 19 })
    const chosen = passwords[resets.findIndex((a) => a.status === 200)]!
    const loser = passwords[resets.findIndex((a) => a.status === 401)]!
    expect((await call('POST', '/stf/v1/auth/login', seller.auth, { email, password: chosen })).status).toBe(200)
    expect((await call('POST', '/stf/v1/auth/login', seller.auth, { email, password: loser })).status).toBe(401)

    expect((await call('POST', '/stf/v1/auth/magic-link', seller.auth, { email })).status).toBe(200)
    const magic = await outboxToken(email)
    expect(countStatuses(await all(20, () => call('POST', '/stf/v1/auth/magic-link/verify', seller.auth, { token: magic })))).toEqual({ 200: 1, 401: 19 })
    const other = await createTestCustomer(fx.app, seller)
    const verifyOther = await outboxToken(other.customer.email)
    expect(countStatuses(await all(20, () => call('POST', '/stf/v1/auth/verify-email', seller.auth, { token: verifyOther })))).toEqual({ 200: 1, 401: 19 })
  })

  it('staff refresh and reset tokens: exactly one success each', async () => {
    const staff = await asAdmin(fx.app)
    const refreshes = await all(20, () => call('POST', '/iam/v1/auth/refresh', {}, { refresh_token: staff.refreshToken }))
    expect(countStatuses(refreshes)).toEqual({ 200: 1, 401: 19 })
    expect((await call('POST', '/iam/v1/password/recover', {}, { email: staff.user.email })).status).toBe(200)
    const token = await outboxToken(staff.user.email)
    const resets = await all(20, () => call('POST', '/iam/v1/password/reset', {}, { token, password: `new-${randomBytes(8).toString('hex')}` }))
    expect(countStatuses(resets)).toEqual({ 200: 1, 401: 19 })
  })
})

describe('one Idempotency-Key, sent many times at once', () => {
  it('20 identical basket creations, then 20 identical checkouts: one basket, one order, the same answer to all', async () => {
    const event = await createTestEvent(fx.app, seller.seller.id)
    const inventory = await createTestInventory(fx.app, event, { capacity: 100 })
    const [buyer] = await crowd(1)
    const key = `retry-${randomBytes(6).toString('hex')}`
    const opened = await all(20, () => call('POST', '/stf/v1/baskets', { ...buyer!.headers, 'idempotency-key': key }, items([inventory.id, 2])))
    expect(countStatuses(opened)).toEqual({ 201: 20 })
    expect(new Set(opened.map((a) => a.body.id)).size).toBe(1)
    expect(opened.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(19)
    const basketId = opened[0]!.body.id as string
    const orders = await all(20, () =>
      call('POST', `/stf/v1/baskets/${basketId}/checkout`, { ...buyer!.headers, 'idempotency-key': `${key}-pay` }, { payment_method: 'pix' }),
    )
    expect(countStatuses(orders)).toEqual({ 201: 20 })
    expect(new Set(orders.map((a) => JSON.stringify(a.body))).size).toBe(1)
    const [row] = await queryDatabase<{ sold: number; baskets: number }>(
      databaseUrl,
      'select sold, (select count(*)::int from basket_items where inventory_id = $1) as baskets from inventories where id = $1',
      [inventory.id],
    )
    expect(row).toEqual({ sold: 2, baskets: 1 })
    await expectConsistent()
  })
})

describe('one email, registering many times at once', () => {
  it('as a customer (in any case): one account, the others 409 email_taken', async () => {
    const email = `twice-${randomInt(1e9)}@example.com`
    const answers = await all(30, (n) =>
      call('POST', '/stf/v1/auth/register', seller.auth, {
        email: n % 2 ? email.toUpperCase() : email,
        password: `pass-${randomBytes(8).toString('hex')}`,
        first_name: 'Twice',
        last_name: String(n),
      }),
    )
    expect(countStatuses(answers)).toEqual({ 201: 1, 409: 29 })
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.code).toBe('email_taken')
    const rows = await queryDatabase(databaseUrl, 'select id from customers where lower(email) = $1', [email])
    expect(rows).toHaveLength(1)
  })

  it('as a member of staff: one user, the others 409 email_taken', async () => {
    const email = `staff-twice-${randomInt(1e9)}@example.test`
    const answers = await all(20, (n) =>
      call('POST', '/iam/v1/users', admin.auth, {
        name: `Twice ${n}`,
        email: n % 2 ? email.toUpperCase() : email,
        password: `pass-${randomBytes(8).toString('hex')}`,
      }),
    )
    expect(countStatuses(answers)).toEqual({ 201: 1, 409: 19 })
  })
})

describe('baskets locking the same inventories in opposite orders', () => {
  it('create, change, discount, check out and cancel all at once: no deadlock, no 5xx, nothing oversold', async () => {
    const event = await createTestEvent(fx.app, seller.seller.id)
    const [x, y] = [
      await createTestInventory(fx.app, event, { capacity: 120, name: 'X' }),
      await createTestInventory(fx.app, event, { capacity: 120, name: 'Y' }),
    ]
    const coupon = await createTestCoupon(fx.app, seller.seller.id, { maxUses: 15 })
    const buyers = await crowd(40)
    const order = (n: number): [string, number][] =>
      n % 2
        ? [
            [x.id, 1],
            [y.id, 1],
          ]
        : [
            [y.id, 1],
            [x.id, 1],
          ]
    const created = await all(40, (n) => call('POST', '/stf/v1/baskets', buyers[n]!.headers, items(...order(n))))
    expect(countStatuses(created)).toEqual({ 201: 40 })
    const ids = created.map((a) => a.body.id as string)

    const statuses: Answer[] = []
    for (let round = 0; round < 4; round++) {
      statuses.push(
        ...(await all(60, (n) => {
          const basket = n % 40
          if (n >= 40) return call('POST', `/stf/v1/baskets/${ids[basket]}/coupon`, buyers[basket]!.headers, { code: coupon.code })
          // The reverse of the order it was created in, quantities that push against the capacity.
          const pairs = order(basket + 1).map(([id]) => [id, 1 + randomInt(4)] as [string, number])
          return call('PATCH', `/stf/v1/baskets/${ids[basket]}/items`, buyers[basket]!.headers, items(...pairs))
        })),
      )
    }
    const finale = await all(70, (n) => {
      if (n < 40) return call('POST', `/stf/v1/baskets/${ids[n]}/checkout`, buyers[n]!.headers, { payment_method: n % 3 ? 'pix' : 'credit_card' })
      if (n < 50) return call('PUT', `/adm/v1/inventories/${n % 2 ? x.id : y.id}`, admin.auth, { capacity: 100 + randomInt(40) })
      if (n < 60) return call('POST', '/stf/v1/baskets', buyers[n - 50]!.headers, items(...order(n)))
      return call('PATCH', `/stf/v1/baskets/${ids[n - 60]}/items`, buyers[n - 60]!.headers, items(...order(n)))
    })
    // Cancellations of what was just sold, racing new checkouts of fresh baskets on the same inventories.
    const placed = finale
      .slice(0, 40)
      .filter((a) => a.status === 201)
      .map((a) => a.body.id as string)
    const fresh = await all(20, (n) => call('POST', '/stf/v1/baskets', buyers[n]!.headers, items(...order(n + 1))))
    const freshIds = fresh.map((a, n) => [a, n] as const).filter(([a]) => a.status === 201)
    const cancels = await all(placed.length + freshIds.length, (n) => {
      if (n < placed.length) return call('POST', `/adm/v1/orders/${placed[n]}/cancel`, admin.auth)
      const [basket, buyer] = freshIds[n - placed.length]!
      return call('POST', `/stf/v1/baskets/${basket.body.id}/checkout`, buyers[buyer]!.headers, { payment_method: 'pix' })
    })
    const everything = [...created, ...statuses, ...finale, ...fresh, ...cancels]
    const counts = countStatuses(everything)
    expect(
      Object.keys(counts)
        .map(Number)
        .every((s) => s > 0 && s < 500),
      JSON.stringify(counts),
    ).toBe(true)
    expect(placed.length).toBeGreaterThan(0)
    expect(countStatuses(cancels.slice(0, placed.length))).toEqual({ 200: placed.length })
    await expectConsistent()
    expect(server.output()).not.toMatch(/deadlock detected/)
  })
})
