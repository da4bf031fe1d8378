import { randomBytes, randomInt } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { LISTENER_NAME } from '../../src/platform/db/database.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestCustomer } from '../factories/customers.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestAffiliate, createTestSeller, type TestSeller } from '../factories/sellers.js'
import { commerceViolations, queryDatabase } from '../support/commerce-invariants.js'
import { all, callServer, countStatuses, freshDatabase, openFixtures, retrying, startServer, type Fixtures } from '../support/live-server.js'
import type { ServerProcess } from '../support/server-process.js'
import { eventually, SmtpSink } from '../support/smtp-sink.js'
import { asAdmin, createStaff, type TestStaff } from '../support/staff.js'

/**
 * Two server processes on one PostgreSQL database and one Redis, as two replicas behind a
 * load balancer: they sell one inventory without overselling, count rate limits together,
 * refuse what the other revoked from the next request on, and send each email once.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
// This run's keys only: other runs (and deployments) on the same Redis keep theirs.
const PREFIX = `bo-test-${inject('runId')}-${randomBytes(3).toString('hex')}:`

let databaseUrl: string
let sink: SmtpSink
let fx: Fixtures
let redis: Redis
let replicas: ServerProcess[] = []
let seller: TestSeller
let admin: TestStaff
let requests = 0
const shed = { retries: 0 }

const LIMITS = {
  IAM_LOGIN_LIMIT_PER_IP: '6',
  IAM_LOGIN_FAILURES_PER_ACCOUNT: '4',
  STF_LOGIN_LIMIT_PER_IP: '6',
  STF_LOGIN_LIMIT_PER_EMAIL: '4',
}

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true })
  await redis.connect()
  databaseUrl = await freshDatabase()
  sink = await SmtpSink.start()
  const env = { REDIS_URL, REDIS_KEY_PREFIX: PREFIX, TRUST_PROXY: '127.0.0.1', SMTP_URL: sink.url, OUTBOX_POLL_MS: '200', DB_POOL_MAX: '6', ...LIMITS }
  // The first migrates; the second finds the schema ready.
  replicas = [await startServer(databaseUrl, env), await startServer(databaseUrl, env)]
  fx = await openFixtures(databaseUrl)
  seller = await createTestSeller(fx.app)
  admin = await asAdmin(fx.app)
}, 90_000)

afterAll(async () => {
  await fx?.close()
  const codes = await Promise.all(replicas.map((r) => r.stop('SIGTERM')))
  await sink?.stop()
  if (redis) {
    const keys: string[] = []
    for await (const batch of redis.scanStream({ match: `${PREFIX}*`, count: 500 })) keys.push(...(batch as string[]))
    if (keys.length) await redis.del(...keys)
    redis.disconnect()
  }
  console.info(`replicas: ${requests} requests over 2 server processes (${shed.retries} answered 503 under the burst and were retried)`)
  expect(codes).toEqual([0, 0])
})

const call = (replica: number, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
  requests++
  return callServer(replicas[replica % 2]!.baseUrl, method, path, { headers, ...(body === undefined ? {} : { body }) })
}

let nextIp = 0
/** A client address of its own for each test, through the trusted proxy. */
const client = () => ({ 'x-forwarded-for': `203.0.113.${++nextIp}` })

describe('one inventory sold by two replicas', () => {
  it('400 baskets at once, alternating replicas, for 40 tickets: exactly 40, then 40 orders', async () => {
    const event = await createTestEvent(fx.app, seller.seller.id)
    const inventory = await createTestInventory(fx.app, event, { capacity: 40 })
    const body = { items: [{ inventory_id: inventory.id, quantity: 1 }] }
    const opened = await all(400, (n) => retrying(() => call(n, 'POST', '/stf/v1/baskets', seller.auth, body), shed))
    expect(countStatuses(opened)).toEqual({ 201: 40, 409: 360 })
    const baskets = opened.filter((a) => a.status === 201).map((a) => a.body.id as string)
    const buyers = await Promise.all(baskets.map(async () => (await insertSignedInCustomer(fx.app, seller)).headers))
    // Each basket checked out on both replicas at once.
    const checkouts = await all(80, (n) =>
      retrying(() => call(n, 'POST', `/stf/v1/baskets/${baskets[n % 40]}/checkout`, buyers[n % 40]!, { payment_method: 'pix' }), shed),
    )
    expect(countStatuses(checkouts)).toEqual({ 201: 40, 409: 40 })
    for (const second of checkouts.filter((a) => a.status === 409)) expect(second.body.code).toBe('basket_checked_out')
    expect(await commerceViolations(databaseUrl)).toEqual([])
  })
})

describe('the catalogue cache of each replica', () => {
  it("a catalogue change through one replica: the other's cached answer is replaced on its next requests", async () => {
    const event = await createTestEvent(fx.app, seller.seller.id, { title: 'Before' })
    await createTestInventory(fx.app, event)
    const titleOn = async (replica: number) => {
      const answer = await call(replica, 'GET', `/stf/v1/events/${event.id}`, seller.auth)
      return (answer.body as { title: string }).title
    }
    // Replica 1 caches the event (CATALOGUE_CACHE_MS is 1 s by default: a notice must end it sooner).
    expect(await titleOn(1)).toBe('Before')
    expect(await titleOn(1)).toBe('Before')
    const renamed = await call(0, 'PUT', `/adm/v1/events/${event.id}`, { authorization: `Bearer ${admin.accessToken}` }, { title: 'After' })
    expect(renamed.status).toBe(200)
    const changedAt = performance.now()
    await eventually(async () => (await titleOn(1)) === 'After', 5000, 10)
    console.info(`catalogue cache: the other replica answered the change ${Math.round(performance.now() - changedAt)} ms after it was made`)
  })
})

describe('rate limits shared through Redis', () => {
  const expectLimited = (answer: { status: number; body: { code?: string } }) => {
    expect(answer.status).toBe(429)
    expect(answer.body.code).toBe('rate_limited')
  }

  it('per address: staff logins spread over both replicas count together', async () => {
    const from = client()
    const guesses = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        call(n, 'POST', '/iam/v1/auth/login', from, { username: `nobody-${n}-${randomInt(1e9)}@example.test`, password: 'wrong password' }),
      ),
    )
    expect(countStatuses(guesses)).toEqual({ 401: 6 })
    for (const replica of [0, 1])
      expectLimited(await call(replica, 'POST', '/iam/v1/auth/login', from, { username: 'another@example.test', password: 'wrong password' }))
  })

  it('per account: failed staff logins and customer logins from many addresses, on both replicas, count together', async () => {
    const staff = await createStaff(fx.app)
    for (let n = 0; n < 4; n++)
      expect((await call(n, 'POST', '/iam/v1/auth/login', client(), { username: staff.user.email, password: 'wrong password' })).status).toBe(401)
    for (const replica of [0, 1])
      expectLimited(await call(replica, 'POST', '/iam/v1/auth/login', client(), { username: staff.user.email, password: staff.user.password }))

    const customer = await createTestCustomer(fx.app, seller)
    const login = (n: number, password: string) =>
      call(n, 'POST', '/stf/v1/auth/login', { ...seller.auth, ...client() }, { email: customer.customer.email, password })
    for (let n = 0; n < 4; n++) expect((await login(n, 'wrong password')).status).toBe(401)
    for (const replica of [0, 1]) expectLimited(await login(replica, customer.password))
  })

  it("keeps its counters under this deployment's key prefix", async () => {
    const keys: string[] = []
    for await (const batch of redis.scanStream({ match: `${PREFIX}rl:*`, count: 500 })) keys.push(...(batch as string[]))
    expect(keys.length).toBeGreaterThan(0)
  })
})

describe('revocations seen by the other replica on its next request', () => {
  it('a revoked API key, a disabled seller, a deactivated affiliate', async () => {
    const shop = await createTestSeller(fx.app)
    await createTestAffiliate(fx.app, shop.seller.id, { code: 'REPLICA' })
    const affiliates = (await call(0, 'GET', `/adm/v1/sellers/${shop.seller.id}/affiliates`, admin.auth)).body.data as { id: string }[]
    // Both replicas have seen (and cached) the key and the affiliate.
    for (const replica of [0, 1]) {
      expect((await call(replica, 'GET', '/stf/v1/seller', shop.auth)).status).toBe(200)
      expect((await call(replica, 'GET', '/stf/v1/seller', { ...shop.auth, 'x-affiliate-code': 'REPLICA' })).status).toBe(200)
    }
    expect((await call(0, 'DELETE', `/adm/v1/affiliates/${affiliates[0]!.id}`, admin.auth)).status).toBe(204)
    expect((await call(1, 'GET', '/stf/v1/seller', { ...shop.auth, 'x-affiliate-code': 'REPLICA' })).body.code).toBe('invalid_affiliate')

    expect((await call(0, 'PUT', `/adm/v1/sellers/${shop.seller.id}`, admin.auth, { status: 'disabled' })).status).toBe(200)
    expect((await call(1, 'GET', '/stf/v1/seller', shop.auth)).status).toBe(401)
    expect((await call(0, 'PUT', `/adm/v1/sellers/${shop.seller.id}`, admin.auth, { status: 'active' })).status).toBe(200)
    expect((await call(1, 'GET', '/stf/v1/seller', shop.auth)).status).toBe(200)

    expect((await call(0, 'DELETE', `/adm/v1/sellers/${shop.seller.id}/api-keys/${shop.apiKeyId}`, admin.auth)).status).toBe(204)
    expect((await call(1, 'GET', '/stf/v1/seller', shop.auth)).status).toBe(401)
    expect((await call(0, 'GET', '/stf/v1/seller', shop.auth)).status).toBe(401)
  })

  it('deactivated through one replica, refused by the other on the very next request, round after round', async () => {
    const shop = await createTestSeller(fx.app)
    for (let round = 0; round < 30; round++) {
      const code = `ROUND${round}`
      const created = await call(round, 'POST', `/adm/v1/sellers/${shop.seller.id}/affiliates`, admin.auth, { code, name: `Round ${round}` })
      expect(created.status).toBe(201)
      // Remembered by both replicas, from the entry of the credentials it came with.
      for (let n = 0; n < 4; n++) expect((await call(n, 'GET', '/stf/v1/seller', { ...shop.auth, 'x-affiliate-code': code })).status).toBe(200)
      expect((await call(round, 'DELETE', `/adm/v1/affiliates/${created.body.id}`, admin.auth)).status).toBe(204)
      expect((await call(round + 1, 'GET', '/stf/v1/seller', { ...shop.auth, 'x-affiliate-code': code })).body.code).toBe('invalid_affiliate')
    }
  })

  it('a key revoked while the other replica had lost its notification connection', async () => {
    const shop = await createTestSeller(fx.app)
    for (const replica of [0, 1]) expect((await call(replica, 'GET', '/stf/v1/seller', shop.auth)).status).toBe(200)
    // Every listening connection to this database is cut: notifications sent now reach no one.
    const cut = await queryDatabase<{ pid: number }>(
      databaseUrl,
      `select pg_terminate_backend(pid), pid from pg_stat_activity where datname = current_database() and application_name = '${LISTENER_NAME}'`,
    )
    expect(cut.length).toBeGreaterThanOrEqual(2)
    expect((await call(0, 'DELETE', `/adm/v1/sellers/${shop.seller.id}/api-keys/${shop.apiKeyId}`, admin.auth)).status).toBe(204)
    expect((await call(1, 'GET', '/stf/v1/seller', shop.auth)).status).toBe(401)
    // ... and after the listeners are back, still refused, while the seller's other keys work.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect((await call(1, 'GET', '/stf/v1/seller', shop.auth)).status).toBe(401)
    const issued = await call(0, 'POST', `/adm/v1/sellers/${shop.seller.id}/api-keys`, admin.auth, {})
    const fresh = { authorization: `Basic ${Buffer.from(`${shop.seller.id}:${issued.body.api_key}`).toString('base64')}` }
    for (const replica of [1, 1, 0]) expect((await call(replica, 'GET', '/stf/v1/seller', fresh)).status).toBe(200)
  })

  it('a staff logout and a withdrawn permission', async () => {
    const clerk = await createStaff(fx.app, { permissions: ['adm.sellers.read', 'adm.orders.read'] })
    const readable = () => call(1, 'GET', `/adm/v1/sellers/${seller.seller.id}`, clerk.auth)
    expect((await readable()).status).toBe(200)
    const permissions = (await call(0, 'GET', `/iam/v1/users/${clerk.user.id}/permissions`, admin.auth)).body as { id: string; name: string }[]
    const sellersRead = permissions.find((p) => p.name === 'adm.sellers.read')!
    expect((await call(0, 'DELETE', `/iam/v1/users/${clerk.user.id}/permissions/${sellersRead.id}`, admin.auth)).status).toBe(204)
    expect((await readable()).status).toBe(403)
    expect((await call(0, 'POST', '/iam/v1/auth/logout', clerk.auth)).status).toBe(204)
    expect((await call(1, 'GET', `/adm/v1/sellers/${seller.seller.id}/orders`, clerk.auth)).status).toBe(401)
  })

  it('a customer refresh token replayed on the other replica revokes its whole family', async () => {
    const customer = await createTestCustomer(fx.app, seller)
    const first = await call(0, 'POST', '/stf/v1/auth/refresh', { ...seller.auth, ...client() }, { refresh_token: customer.refreshToken })
    expect(first.status).toBe(200)
    expect((await call(1, 'POST', '/stf/v1/auth/refresh', { ...seller.auth, ...client() }, { refresh_token: customer.refreshToken })).status).toBe(401)
    expect((await call(0, 'POST', '/stf/v1/auth/refresh', { ...seller.auth, ...client() }, { refresh_token: first.body.refresh_token })).status).toBe(401)
    // The access tokens of that session end too, on both replicas.
    for (const replica of [0, 1]) {
      expect((await call(replica, 'GET', '/stf/v1/me', { ...seller.auth, 'x-customer-token': first.body.access_token })).status).toBe(401)
    }
  })

  it('a customer signed out through one replica: its access token refused by the other on the very next request, round after round', async () => {
    const customer = await createTestCustomer(fx.app, seller)
    for (let round = 0; round < 10; round++) {
      const login = await call(
        round,
        'POST',
        '/stf/v1/auth/login',
        { ...seller.auth, ...client() },
        { email: customer.customer.email, password: customer.password },
      )
      expect(login.status).toBe(200)
      const me = { ...seller.auth, 'x-customer-token': login.body.access_token as string }
      // Both replicas know the session live (and remember it).
      for (let n = 0; n < 4; n++) expect((await call(n, 'GET', '/stf/v1/me', me)).status).toBe(200)
      expect((await call(round, 'DELETE', `/stf/v1/auth/logout?user_id=${customer.customer.id}`, seller.auth)).status).toBe(204)
      expect((await call(round + 1, 'GET', '/stf/v1/me', me)).body.code).toBe('invalid_token')
    }
  })
})

describe('the email outbox with a worker in each replica', () => {
  it('sends each queued email exactly once', async () => {
    const shop = await createTestSeller(fx.app)
    const emails = Array.from({ length: 20 }, (_, n) => `outbox-${n}-${randomInt(1e9)}@example.com`)
    const registered = await all(20, (n) =>
      call(
        n,
        'POST',
        '/stf/v1/auth/register',
        { ...shop.auth, ...client() },
        { email: emails[n], password: `pass-${randomBytes(8).toString('hex')}`, first_name: 'O', last_name: String(n) },
      ),
    )
    expect(countStatuses(registered)).toEqual({ 201: 20 })
    const asked = await all(10, (n) => call(n + 1, 'POST', '/stf/v1/auth/forgot-password', { ...shop.auth, ...client() }, { email: emails[n] }))
    expect(countStatuses(asked)).toEqual({ 200: 10 })
    const delivered = () => sink.received.filter((m) => m.to.some((to) => emails.includes(to)))
    await eventually(() => delivered().length >= 30, 20_000, 100)
    // Several polls later, still nothing sent twice.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const mails = delivered()
    expect(mails).toHaveLength(30)
    const perRecipient = new Map<string, number>()
    for (const mail of mails) perRecipient.set(mail.to[0]!, (perRecipient.get(mail.to[0]!) ?? 0) + 1)
    for (const [n, email] of emails.entries()) expect(perRecipient.get(email), email).toBe(n < 10 ? 2 : 1)
  })
})
