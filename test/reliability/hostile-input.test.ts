import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startStaffSession } from '../../src/domain/staff/start-staff-session.js'
import { signStaffAccessToken } from '../../src/iam/staff-auth.js'
import { ERRORS } from '../../src/platform/errors.js'
import { buildTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestCustomer, type TestCustomer } from '../factories/customers.js'
import { forbiddenLabels } from '../factories/seating.js'
import { createTestAffiliate, createTestSeller, type TestSeller } from '../factories/sellers.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { fingerprint } from '../support/db-fingerprint.js'
import { expectError } from '../support/customer-auth.js'
import { hostileRequest, operationsOf, type GeneratedRequest, type IdPools, type OpenApiDocument, type Operation } from '../support/openapi-inputs.js'
import { asAdmin, createStaff, type TestStaff } from '../support/staff.js'
import { NO_RATE_LIMITS } from '../support/limits.js'

/**
 * Every route of /openapi.json, given hostile input generated from its own schemas (one
 * parameter, header or body field at a time made hostile, the rest valid and pointing at real
 * objects): never a 5xx, every error in the envelope, and a refused request changes nothing.
 * RELIABILITY_RUNS sets the runs per route, RELIABILITY_SEED replays a run.
 */
const RUNS = Number(process.env.RELIABILITY_RUNS ?? 40)
const SEED = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2 ** 31)

// The document is read from an app of its own, so that the routes are known when tests are declared.
const doc = await (async () => {
  const probe = await buildTestApp()
  try {
    return (await probe.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApiDocument
  } finally {
    await probe.close()
  }
})()
const operations = operationsOf(doc)

let app: FastifyInstance
let seller: TestSeller
let customer: TestCustomer
let admin: TestStaff
let pools: IdPools
let deviceAuth: Record<string, string>

const tally = { inputs: 0, byStatus: new Map<number, number>(), refusedUnchanged: 0 }

type Fixture = {
  events: string[]
  slugs: string[]
  inventories: string[]
  baskets: string[]
  items: string[]
  orders: string[]
  coupons: string[]
  affiliates: string[]
  keys: string[]
  customers: string[]
  /** Check-in lists and scanner devices (docs/door.md), added once the back office is at hand. */
  lists: string[]
  devices: string[]
}

/** A seller with a bit of everything: events, inventories, a coupon, an affiliate, open baskets and orders. */
async function furnish(target: TestSeller, buyer: TestCustomer, baskets: number, orders: number): Promise<Fixture> {
  const event = await createTestEvent(app, target.seller.id)
  const draft = await createTestEvent(app, target.seller.id, { status: 'draft' })
  const inventories = [
    await createTestInventory(app, event, { capacity: 100_000, price: 5000 }),
    await createTestInventory(app, event, { capacity: 100_000, price: 100_000_000, name: 'VIP' }),
  ]
  const coupon = await createTestCoupon(app, target.seller.id, { maxUses: 1000 })
  const affiliate = await createTestAffiliate(app, target.seller.id)
  const fixture: Fixture = {
    events: [event.id, draft.id],
    slugs: [event.slug, draft.slug],
    inventories: inventories.map((i) => i.id),
    baskets: [],
    items: [],
    orders: [],
    coupons: [coupon.id],
    affiliates: [affiliate.id],
    keys: [target.apiKeyId],
    customers: [buyer.customer.id],
    lists: [],
    devices: [],
  }
  for (let n = 0; n < baskets + orders; n++) {
    const res = await app.inject({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers: buyer.headers,
      payload: { items: inventories.map((i) => ({ inventory_id: i.id, quantity: 1 })) },
    })
    expect(res.statusCode, res.body).toBe(201)
    const basket = res.json() as { id: string; items: { id: string }[] }
    if (n < orders) {
      const order = await app.inject({
        method: 'POST',
        url: `/stf/v1/baskets/${basket.id}/checkout`,
        headers: buyer.headers,
        payload: { payment_method: 'pix' },
      })
      expect(order.statusCode, order.body).toBe(201)
      fixture.orders.push(order.json().id)
    } else {
      fixture.baskets.push(basket.id)
      fixture.items.push(...basket.items.map((i) => i.id))
    }
  }
  return fixture
}

beforeAll(async () => {
  await resetDatabase(await testDatabase())
  app = await buildTestApp({ env: NO_RATE_LIMITS })
  seller = await createTestSeller(app)
  customer = await createTestCustomer(app, seller)
  const mine = await furnish(seller, customer, 6, 2)
  // The back office works on another seller, so that what it disables or revokes there
  // leaves the storefront fuzzing of `seller` its credentials.
  const victim = await createTestSeller(app)
  const victimBuyer = await createTestCustomer(app, victim)
  const theirs = await furnish(victim, victimBuyer, 1, 2)
  admin = await asAdmin(app)
  const others = await Promise.all([createStaff(app, { permissions: ['adm.orders.read'] }), createStaff(app)])
  const role = await app.inject({
    method: 'POST',
    url: '/iam/v1/roles',
    headers: admin.auth,
    payload: { name: 'fuzz-role', description: 'x', permissions: ['adm.orders.read'] },
  })
  const permission = await app.inject({
    method: 'POST',
    url: '/iam/v1/permissions',
    headers: admin.auth,
    payload: { name: 'fuzz.permission', description: 'x' },
  })
  expect([role.statusCode, permission.statusCode]).toEqual([201, 201])
  const adminRole = (
    (await app.inject({ method: 'GET', url: '/iam/v1/roles?limit=100', headers: admin.auth })).json().data as { id: string; name: string }[]
  ).find((r) => r.name === 'admin')!
  const builtin = ((await app.inject({ method: 'GET', url: '/iam/v1/permissions?limit=100', headers: admin.auth })).json().data as { id: string }[])[0]!
  // A paired scanner of `seller`, so that /chk/v1 is attacked past its authentication.
  for (const [target, fixture] of [
    [seller, mine],
    [victim, theirs],
  ] as const) {
    const list = await app.inject({ method: 'POST', url: `/adm/v1/events/${fixture.events[0]}/checkin-lists`, headers: admin.auth, payload: { name: 'Door' } })
    const created = await app.inject({ method: 'POST', url: `/adm/v1/sellers/${target.seller.id}/devices`, headers: admin.auth, payload: { name: 'Gate' } })
    expect([list.statusCode, created.statusCode]).toEqual([201, 201])
    fixture.lists.push(list.json().id)
    fixture.devices.push(created.json().id)
    if (target === seller) {
      const paired = await app.inject({ method: 'POST', url: '/chk/v1/pair', payload: { pairing_code: created.json().pairing_code } })
      expect(paired.statusCode).toBe(201)
      deviceAuth = { authorization: `Device ${paired.json().token}` }
    }
  }

  const byPrefix = (path: string) => (path.startsWith('/stf/') || path.startsWith('/chk/') ? mine : theirs)
  pools = {
    forPath(path, segment, name) {
      const f = byPrefix(path)
      if (name === 'id_or_slug') return [...f.events, ...f.slugs]
      if (name === 'item_id') return f.items
      if (name === 'key_id') return f.keys
      if (name === 'permission_id') return [permission.json().id, builtin.id]
      switch (segment) {
        case 'sellers':
          return [victim.seller.id]
        case 'events':
          return f.events
        case 'inventories':
          return f.inventories
        case 'baskets':
          return f.baskets
        case 'orders':
          return f.orders
        case 'coupons':
          return f.coupons
        case 'affiliates':
          return f.affiliates
        case 'lists':
        case 'checkin-lists':
          return f.lists
        case 'devices':
          return f.devices
        case 'users':
          return others.map((o) => o.user.id)
        case 'roles':
          return [role.json().id, adminRole.id]
        case 'permissions':
          return [permission.json().id, builtin.id]
        default:
          return []
      }
    },
    any: [...mine.inventories, ...mine.events, ...mine.orders, ...mine.customers, ...theirs.inventories, ...theirs.events, ...theirs.orders],
  }
}, 120_000)

afterAll(async () => {
  await app?.close()
  const statuses = [...tally.byStatus]
    .sort(([x], [y]) => x - y)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ')
  console.info(
    `hostile input: ${tally.inputs} generated requests over ${operations.length} routes (${RUNS} runs each, seed ${SEED}); ` +
      `answers ${statuses}; ${tally.refusedUnchanged} refusals left the database unchanged`,
  )
})

const STAFF_PLACEHOLDER = 'Bearer {staff}'

/** The credentials an operation needs, valid; the generator may then make them hostile. */
function authFor(op: Operation): Record<string, string> {
  if (op.security.includes('sellerBasic')) return { ...customer.headers }
  if (op.security.includes('staffBearer')) return { authorization: STAFF_PLACEHOLDER }
  if (op.security.includes('deviceToken')) return { ...deviceAuth }
  return {}
}

/** A fresh admin session per request: a request under test may sign the admin out. */
async function staffToken() {
  const grant = await startStaffSession(app.db, { userId: admin.user.id, tokenHmac: app.secrets.tokenHmac, refreshTtlSeconds: 3600 })
  return `Bearer ${signStaffAccessToken(app, { userId: admin.user.id, sessionId: grant.sessionId }).token}`
}

const describeRequest = (req: GeneratedRequest) => `${req.method} ${req.url.slice(0, 200)} [${req.mutation}]`

async function send(req: GeneratedRequest) {
  const headers = { ...req.headers }
  if (headers.authorization === STAFF_PLACEHOLDER) headers.authorization = await staffToken()
  // An export accepted by an earlier request writes its file in the background: let it end first.
  await app.exports.settled()
  const before = await fingerprint(app.db)
  const res = await app.inject({ method: req.method, url: req.url, headers, ...(req.payload === undefined ? {} : { payload: req.payload }) })
  tally.inputs++
  tally.byStatus.set(res.statusCode, (tally.byStatus.get(res.statusCode) ?? 0) + 1)

  if (res.statusCode >= 500) throw new Error(`${describeRequest(req)} answered ${res.statusCode}: ${res.body.slice(0, 300)}`)
  if (res.statusCode >= 400) {
    let body: Record<string, unknown>
    try {
      body = res.json()
    } catch {
      throw new Error(`${describeRequest(req)} answered ${res.statusCode} without a JSON body: ${res.body.slice(0, 200)}`)
    }
    const code = body.code as keyof typeof ERRORS
    const envelope =
      code in ERRORS &&
      ERRORS[code].status === res.statusCode &&
      typeof body.message === 'string' &&
      body.trace_id === res.headers['x-trace-id'] &&
      Object.keys(body).every((k) => ['code', 'message', 'trace_id', 'details'].includes(k))
    if (!envelope) throw new Error(`${describeRequest(req)} answered ${res.statusCode} outside the envelope: ${res.body.slice(0, 300)}`)
    if ((await fingerprint(app.db)) !== before) {
      throw new Error(`${describeRequest(req)} was refused (${res.statusCode} ${code}) but changed the database`)
    }
    tally.refusedUnchanged++
  }
}

describe('LIKE wildcards in searches', () => {
  it('match themselves, not everything', async () => {
    const staff = { authorization: await staffToken() }
    const total = async (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) => {
      const res = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) })
      expect(res.statusCode, res.body).toBe(200)
      return res.json().meta.total as number
    }
    for (const wildcard of ['%', '_', '%_%']) {
      const q = encodeURIComponent(wildcard)
      expect(await total('GET', `/stf/v1/events?q=${q}`, seller.auth), wildcard).toBe(0)
      expect(await total('GET', `/adm/v1/sellers?q=${q}`, staff), wildcard).toBe(0)
      for (const kind of ['users', 'roles', 'permissions'])
        expect(await total('POST', `/iam/v1/${kind}/search`, staff, { q: wildcard }), `${kind} ${wildcard}`).toBe(0)
    }
    // ... while a plain search does find things, so the zeros above mean something.
    expect(await total('GET', '/adm/v1/sellers?q=Seller', staff)).toBeGreaterThan(0)
    expect(await total('POST', '/iam/v1/permissions/search', staff, { q: 'adm' })).toBeGreaterThan(0)
  })
})

describe('every route, given hostile input', () => {
  for (const op of operations) {
    it(`${op.method} ${op.path}: a 4xx envelope or a success, never a 5xx; refusals change nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(hostileRequest(doc, op, pools, authFor(op)), async (req) => {
          await send(req)
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
    })
  }

  it('takes its routes from the served document: every group, every route with a schema', () => {
    // Only /openapi.json, /docs and /metrics are left out of the document (and so of the runs above).
    for (const prefix of ['/stf/v1/', '/iam/v1/', '/adm/v1/'])
      expect(
        operations.some((op) => op.path.startsWith(prefix)),
        prefix,
      ).toBe(true)
    expect(operations.length).toBeGreaterThanOrEqual(80)
  })
})

describe('the fingerprint that proves "changes nothing"', () => {
  it('changes with a write and not with a lock or a rolled-back write', async () => {
    const before = await fingerprint(app.db)
    await app.db.transaction(async (tx) => {
      await tx.execute(sql`select id from sellers for update`)
    })
    await app.db
      .transaction(async (tx) => {
        await tx.execute(sql`update sellers set name = name || '!'`)
        throw new Error('roll back')
      })
      .catch(() => undefined)
    expect(await fingerprint(app.db)).toBe(before)
    await app.db.execute(sql`update sellers set name = name where id = ${seller.seller.id}`)
    expect(await fingerprint(app.db)).not.toBe(before)
  })
})

describe('inputs the fuzzing found, kept as examples', () => {
  const json = { 'content-type': 'application/json' }

  it('refuses NUL characters anywhere with 400 validation_error instead of a database error', async () => {
    const event = (await app.inject({ method: 'GET', url: '/stf/v1/events', headers: seller.auth })).json().data[0]
    const cases = [
      { method: 'GET' as const, url: '/stf/v1/events?q=%00', headers: seller.auth, path: 'querystring.q' },
      { method: 'GET' as const, url: '/stf/v1/events/ab%00cd', headers: seller.auth },
      { method: 'GET' as const, url: '/stf/v1/events', headers: { ...seller.auth, 'x-affiliate-code': 'A\u0000B' }, path: 'headers.x-affiliate-code' },
      { method: 'GET' as const, url: `/adm/v1/sellers?q=%00`, headers: { authorization: await staffToken() } },
      {
        method: 'POST' as const,
        url: '/iam/v1/auth/login',
        headers: json,
        payload: JSON.stringify({ username: 'a\u0000@example.com', password: 'whatever-it-is' }),
      },
      {
        method: 'POST' as const,
        url: '/stf/v1/auth/register',
        headers: { ...seller.auth, ...json },
        payload: JSON.stringify({ email: 'nul@example.com', password: 'a-long-passphrase', first_name: 'A\u0000', last_name: 'B' }),
        path: 'first_name',
      },
      {
        method: 'PUT' as const,
        url: `/adm/v1/events/${event.id}`,
        headers: { authorization: await staffToken(), ...json },
        payload: JSON.stringify({ attributes: [{ name: 'x', value: 'y', 'k\u0000': 1 }] }),
        path: 'attributes.0.k\u0000',
      },
    ]
    for (const { path, ...request } of cases) {
      const before = await fingerprint(app.db)
      const res = await app.inject(request)
      expectError(res, 400, 'validation_error')
      if (path) expect(res.json().details[0].path).toBe(path)
      expect(await fingerprint(app.db)).toBe(before)
    }
  })

  it('refuses unpaired surrogates instead of storing U+FFFD in their place', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/stf/v1/auth/register',
      headers: { ...seller.auth, ...json },
      payload: '{"email":"surrogate@example.com","password":"a-long-passphrase","first_name":"A\\ud800","last_name":"B"}',
    })
    expectError(res, 400, 'validation_error')
    expect(res.json().details).toEqual([{ path: 'first_name', message: expect.stringContaining('surrogate') }])
    // A well-formed pair (an emoji) is a character like any other.
    const emoji = await app.inject({
      method: 'POST',
      url: '/stf/v1/auth/register',
      headers: { ...seller.auth, ...json },
      payload: '{"email":"emoji@example.com","password":"a-long-passphrase","first_name":"A\\ud83d\\ude00","last_name":"B"}',
    })
    expect(emoji.statusCode, emoji.body).toBe(201)
    expect(emoji.json().customer.first_name).toBe('A😀')
  })

  it('refuses dates and instants outside 1900-01-01 .. 2199-12-31 with 400 naming the field, not a database error', async () => {
    const staff = { authorization: await staffToken() }
    const event = (await app.inject({ method: 'GET', url: '/stf/v1/events', headers: seller.auth })).json().data[0]
    const coupon = (await app.inject({ method: 'GET', url: `/adm/v1/sellers/${seller.seller.id}/coupons`, headers: staff })).json().data[0]
    const cases = [
      { method: 'GET' as const, url: '/stf/v1/events?date_from=0000-01-01', headers: seller.auth, path: 'querystring.date_from' },
      { method: 'GET' as const, url: `/stf/v1/events/${event.id}/availability?to=9999-12-20`, headers: seller.auth, path: 'querystring.to' },
      { method: 'GET' as const, url: `/stf/v1/events/${event.id}/availability?from=9999-12-20`, headers: seller.auth, path: 'querystring.from' },
      {
        method: 'POST' as const,
        url: `/adm/v1/events/${event.id}/inventories`,
        headers: staff,
        payload: { date: '0000-01-01', name: 'Year zero', price: 100, capacity: 1 },
        path: 'date',
      },
      { method: 'PUT' as const, url: `/adm/v1/coupons/${coupon.id}`, headers: staff, payload: { starts_at: '0000-01-01T00:00:00Z' }, path: 'starts_at' },
    ]
    for (const { path, ...request } of cases) {
      const before = await fingerprint(app.db)
      const res = await app.inject(request)
      expectError(res, 400, 'validation_error')
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path)
      expect(await fingerprint(app.db)).toBe(before)
    }
  })

  it('answers a path that does not decode, or a parameter over the router limit, in the envelope', async () => {
    for (const url of ['/stf/v1/baskets/%ED%A0%80', `/iam/v1/roles/${'%E2%82%AC'.repeat(300)}`, '/stf/v1/events/%zz']) {
      const res = await app.inject({ method: 'GET', url, headers: seller.auth })
      expectError(res, 400, 'validation_error')
    }
  })

  it('refuses a 100,000-seat plan whose labels carry every character XML forbids: by paths, fast, without a transaction', async () => {
    for (const nul of [false, true]) {
      const payload = JSON.stringify({ name: 'Stadium', plan: forbiddenLabels({ nul }) })
      const headers = { authorization: await staffToken(), ...json }
      const before = await fingerprint(app.db)
      const transaction = vi.spyOn(app.db, 'transaction')
      const started = performance.now()
      const res = await app.inject({ method: 'POST', url: `/adm/v1/sellers/${seller.seller.id}/seating-plans`, headers, payload })
      const ms = performance.now() - started
      transaction.mockRestore()
      console.info(
        `${(payload.length / 2 ** 20).toFixed(1)} MiB plan, 100,000 seats with forbidden labels${nul ? ' (NUL too)' : ''}: refused in ${ms.toFixed(0)} ms`,
      )
      expectError(res, 400, 'validation_error')
      const paths = (res.json().details as { path: string }[]).map((d) => d.path)
      // NUL, which no text of any request may carry, is refused where it is first met; the others by the first 50 of their paths.
      const seat = (s: number) => `plan.zones.0.rows.0.seats.${s}`
      expect(paths).toEqual(nul ? [`${seat(0)}.seat_guid`] : [...Array(25).keys()].flatMap((s) => [`${seat(s)}.seat_guid`, `${seat(s)}.seat_number`]))
      expect(transaction).not.toHaveBeenCalled()
      expect(ms).toBeLessThan(3000)
      expect(await fingerprint(app.db)).toBe(before)
    }
  })

  it('sells the largest basket the schemas allow without overflowing an order total', async () => {
    // A customer of its own: the generated requests above may have signed the shared one out.
    const buyer = await createTestCustomer(app, seller)
    const event = await createTestEvent(app, seller.seller.id)
    const inventories = await Promise.all(
      Array.from({ length: 50 }, (_, n) => createTestInventory(app, event, { name: `Top ${n}`, price: 100_000_000, capacity: 1_000_000 })),
    )
    const basket = await app.inject({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers: buyer.headers,
      payload: { items: inventories.map((i) => ({ inventory_id: i.id, quantity: 20 })) },
    })
    expect(basket.statusCode, basket.body).toBe(201)
    expect(basket.json().totals.total).toBe(50 * 20 * 100_000_000)
    const plans = await app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${basket.json().id}/installments`,
      headers: buyer.headers,
      payload: { payment_method: 'credit_card' },
    })
    const longest = (plans.json().plans as { installments: number; total: number }[]).at(-1)!
    const order = await app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${basket.json().id}/checkout`,
      headers: buyer.headers,
      payload: { payment_method: 'credit_card', installments: longest.installments },
    })
    expect(order.statusCode, order.body).toBe(201)
    expect(order.json().totals).toMatchObject({ subtotal: 100_000_000_000, total: longest.total })
    const read = await app.inject({ method: 'GET', url: `/stf/v1/orders/${order.json().id}`, headers: buyer.headers })
    expect(read.json().totals).toEqual(order.json().totals)
  })
})

describe('requests that Node itself cannot parse', () => {
  it('answer 400 in the envelope and close the connection', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as AddressInfo
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(request))
        let answer = ''
        socket.on('data', (chunk) => (answer += chunk.toString('latin1')))
        socket.on('end', () => resolve(answer))
        socket.on('error', reject)
        socket.setTimeout(5000, () => reject(new Error('no answer')))
      })
    const requests = [
      'GET /iam/v1/health HTTP/1.1\r\nHost: x\r\nX-Affiliate-Code: a\u0000b\r\n\r\n',
      'GET /iam/v1/health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n',
      'GET /iam/v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      'NOT-A-METHOD / HTTP/1.1\r\n\r\n',
      `GET /iam/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]
    for (const request of requests) {
      const answer = await raw(request)
      const [head, body] = answer.split('\r\n\r\n')
      expect(head, JSON.stringify(request.slice(0, 60))).toMatch(/^HTTP\/1\.1 400 /)
      const traceId = /x-trace-id: (\S+)/i.exec(head!)?.[1]
      expect(JSON.parse(body!)).toEqual({ code: 'validation_error', message: expect.any(String), trace_id: traceId })
    }
  })
})
