import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../build-app.js'
import { createTestCustomer } from '../factories/customers.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { postAuth } from '../support/customer-auth.js'
import { resetDatabase, testDatabase } from '../support/database.js'

let app: FastifyInstance

beforeAll(async () => {
  await resetDatabase(await testDatabase())
  app = await buildTestApp({
    env: {
      STF_RATE_LIMIT_WINDOW_SECONDS: '30',
      STF_LOGIN_LIMIT_PER_IP: '6',
      STF_LOGIN_LIMIT_PER_EMAIL: '3',
      STF_EMAIL_LIMIT_PER_IP: '5',
      STF_EMAIL_LIMIT_PER_EMAIL: '2',
      STF_REFRESH_LIMIT_PER_IP: '3',
      STF_TOKEN_LIMIT_PER_IP: '3',
      // These tests count per connection, at the limits as set.
      STF_LIMIT_FACTOR_WITHOUT_END_USER_IP: '1',
    },
  })
})
afterAll(async () => {
  await app?.close()
})

const post = (seller: TestSeller, path: string, body: unknown) => postAuth(app, seller, path, body)

function expectLimited(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(429)
  expect(res.json()).toMatchObject({ code: 'rate_limited', trace_id: res.headers['x-trace-id'] })
  const retryAfter = Number(res.headers['retry-after'])
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(30)
}

async function statuses(count: number, call: (i: number) => Promise<LightMyRequestResponse>) {
  const out: number[] = []
  for (let i = 0; i < count; i++) out.push((await call(i)).statusCode)
  return out
}

describe('customer authentication rate limits', () => {
  it('limits login attempts per email, whatever its case, per seller', async () => {
    const a = await createTestSeller(app)
    const b = await createTestSeller(app)
    const { customer, password } = await createTestCustomer(app, a, { email: 'guess.me@example.com' })
    await createTestCustomer(app, b, { email: 'guess.me@example.com', password })
    const emails = ['guess.me@example.com', 'GUESS.ME@example.com', 'Guess.Me@Example.com']
    expect(await statuses(3, (i) => post(a, 'login', { email: emails[i], password: 'wrong password' }))).toEqual([401, 401, 401])
    // Past the limit even the right password is refused, before any password work.
    expectLimited(await post(a, 'login', { email: customer.email, password }))
    expect((await post(a, 'login', { email: 'someone.else@example.com', password: 'wrong password' })).statusCode).toBe(401)
    expect((await post(b, 'login', { email: customer.email, password })).statusCode).toBe(200)
  })

  it('counts concurrent login attempts before any of them is checked', async () => {
    const a = await createTestSeller(app)
    const { customer } = await createTestCustomer(app, a)
    const results = await Promise.all(Array.from({ length: 8 }, () => post(a, 'login', { email: customer.email, password: 'wrong password' })))
    expect(results.filter((r) => r.statusCode === 401)).toHaveLength(3)
    for (const res of results.filter((r) => r.statusCode !== 401)) expectLimited(res)
  })

  it('forgives a login with the right password: its owner is never limited by its own sign-ins', async () => {
    const a = await createTestSeller(app)
    const { customer, password } = await createTestCustomer(app, a)
    // Each from its own address, so that only the per-email limit (3) is in play.
    let visitor = 0
    const login = (pw: string) => postAuth(app, a, 'login', { email: customer.email, password: pw }, { 'x-end-user-ip': `192.0.2.${++visitor}` })
    expect(await statuses(5, () => login(password))).toEqual(Array(5).fill(200))
    // The window still counts the wrong guesses.
    expect(await statuses(3, () => login('wrong password'))).toEqual([401, 401, 401])
    expectLimited(await login(password))
  })

  it('limits login attempts per client IP, per seller', async () => {
    const a = await createTestSeller(app)
    const b = await createTestSeller(app)
    expect(await statuses(6, (i) => post(a, 'login', { email: `ip-${i}@example.com`, password: 'wrong password' }))).toEqual(Array(6).fill(401))
    expectLimited(await post(a, 'login', { email: 'ip-6@example.com', password: 'wrong password' }))
    // Counted before the body is even parsed.
    expectLimited(await post(a, 'login', { nonsense: true }))
    expect((await post(b, 'login', { email: 'ip-0@example.com', password: 'wrong password' })).statusCode).toBe(401)
  })

  it('limits forgot-password and magic-link emails per address, together, alike for unknown addresses', async () => {
    for (const email of ['bomb.me@example.com', 'nobody@example.com']) {
      // A seller each, so that the per-IP limit stays out of the way.
      const a = await createTestSeller(app)
      await createTestCustomer(app, a, { email: 'bomb.me@example.com' })
      expect((await post(a, 'forgot-password', { email })).statusCode).toBe(200)
      expect((await post(a, 'magic-link', { email: email.toUpperCase() })).statusCode).toBe(200)
      const limited = await post(a, 'forgot-password', { email })
      expectLimited(limited)
      expectLimited(await post(a, 'magic-link', { email }))
    }
  })

  it('limits the calls that send an email per client IP: register, forgot-password, magic-link', async () => {
    const a = await createTestSeller(app)
    const register = (i: number) => post(a, 'register', { email: `new-${i}@example.com`, password: 'long enough', first_name: 'N', last_name: 'N' })
    expect(await statuses(3, register)).toEqual([201, 201, 201])
    expect((await post(a, 'forgot-password', { email: 'x1@example.com' })).statusCode).toBe(200)
    expect((await post(a, 'magic-link', { email: 'x2@example.com' })).statusCode).toBe(200)
    expectLimited(await register(3))
    expectLimited(await post(a, 'magic-link', { email: 'x3@example.com' }))
  })

  it('limits refresh per client IP, per seller', async () => {
    const a = await createTestSeller(app)
    expect(await statuses(3, () => post(a, 'refresh', { refresh_token: 'x'.repeat(43) }))).toEqual([401, 401, 401])
    expectLimited(await post(a, 'refresh', { refresh_token: 'x'.repeat(43) }))
  })

  it('limits the calls that consume an emailed token per client IP', async () => {
    const a = await createTestSeller(app)
    expect((await post(a, 'reset-password', { token: 'x'.repeat(43), password: 'long enough' })).statusCode).toBe(401)
    expect((await post(a, 'verify-email', { token: 'x'.repeat(43) })).statusCode).toBe(401)
    expect((await post(a, 'magic-link/verify', { token: 'x'.repeat(43) })).statusCode).toBe(401)
    expectLimited(await post(a, 'verify-email', { token: 'x'.repeat(43) }))
  })

  it('checks the seller credentials before counting', async () => {
    const res = await app.inject({ method: 'POST', url: '/stf/v1/auth/refresh', payload: { refresh_token: 'x' } })
    expect(res.statusCode).toBe(401)
    expect(res.json().code).toBe('unauthorized')
  })

  it('lets calls through again once the window has passed', async () => {
    const short = await buildTestApp({
      // A window long enough for two calls in a row even on a busy machine.
      env: { STF_RATE_LIMIT_WINDOW_SECONDS: '3', STF_REFRESH_LIMIT_PER_IP: '1', STF_LIMIT_FACTOR_WITHOUT_END_USER_IP: '1' },
    })
    try {
      const a = await createTestSeller(short)
      const refresh = () => postAuth(short, a, 'refresh', { refresh_token: 'x'.repeat(43) })
      expect((await refresh()).statusCode).toBe(401)
      const limited = await refresh()
      expect(limited.statusCode).toBe(429)
      // As a client would: back again once Retry-After has passed.
      const retryAt = Date.now() + Number(limited.headers['retry-after']) * 1000 + 50
      while (Date.now() < retryAt) await new Promise((resolve) => setTimeout(resolve, retryAt - Date.now()))
      expect((await refresh()).statusCode).toBe(401)
    } finally {
      await short.close()
    }
  })
})

describe('X-End-User-IP: one abusive visitor cannot lock a storefront out', () => {
  // The defaults: 60 logins and 30 emails per address per minute, 10 logins per email.
  let shop: FastifyInstance
  beforeAll(async () => {
    shop = await buildTestApp()
  })
  afterAll(() => shop?.close())

  const from = (seller: TestSeller, path: string, body: unknown, endUserIp?: string) =>
    postAuth(shop, seller, path, body, endUserIp ? { 'x-end-user-ip': endUserIp } : {})

  /** `count` calls, a few at a time (each login costs an argon2 verification). */
  async function flood(count: number, call: (i: number) => Promise<LightMyRequestResponse>) {
    const out: number[] = []
    for (let i = 0; i < count; i += 10) {
      out.push(...(await Promise.all(Array.from({ length: Math.min(10, count - i) }, (_, j) => call(i + j)))).map((r) => r.statusCode))
    }
    return out
  }

  it('counts per end-user address: 60 logins and 30 forgot-passwords from one leave every other visitor in', async () => {
    const a = await createTestSeller(shop)
    const real = await createTestCustomer(shop, a)
    const attacker = '203.0.113.7'
    const logins = await flood(61, (i) => from(a, 'login', { email: `random-${i}@example.com`, password: 'wrong password' }, attacker))
    expect(logins.slice(0, 60)).toEqual(Array(60).fill(401))
    expect(logins[60]).toBe(429)
    const resets = await flood(31, (i) => from(a, 'forgot-password', { email: `random-${i}@example.com` }, attacker))
    expect(resets.slice(0, 30)).toEqual(Array(30).fill(200))
    expect(resets[30]).toBe(429)
    // The attacker is limited; the storefront's other customers are not.
    expect((await from(a, 'login', { email: real.customer.email, password: real.password }, '198.51.100.20')).statusCode).toBe(200)
    const newcomer = { email: 'newcomer@example.com', password: 'long enough', first_name: 'N', last_name: 'N' }
    expect((await from(a, 'register', newcomer, '2001:db8::42')).statusCode).toBe(201)
  })

  it('without the header, counts per connection with limits high enough that the same flood locks nobody out', async () => {
    const a = await createTestSeller(shop)
    const real = await createTestCustomer(shop, a)
    const logins = await flood(60, (i) => from(a, 'login', { email: `flood-${i}@example.com`, password: 'wrong password' }))
    expect(logins).toEqual(Array(60).fill(401))
    expect(await flood(30, (i) => from(a, 'forgot-password', { email: `flood-${i}@example.com` }))).toEqual(Array(30).fill(200))
    expect((await from(a, 'login', { email: real.customer.email, password: real.password })).statusCode).toBe(200)
    const newcomer = { email: 'newcomer@example.com', password: 'long enough', first_name: 'N', last_name: 'N' }
    expect((await from(a, 'register', newcomer)).statusCode).toBe(201)
  })

  it('still limits each email, whatever the addresses: 10 guesses, then 429 even for the right password', async () => {
    const a = await createTestSeller(shop)
    const victim = await createTestCustomer(shop, a)
    const guesses = await flood(10, (i) => from(a, 'login', { email: victim.customer.email, password: 'wrong password' }, `192.0.2.${i + 1}`))
    expect(guesses).toEqual(Array(10).fill(401))
    expect((await from(a, 'login', { email: victim.customer.email, password: victim.password }, '192.0.2.200')).statusCode).toBe(429)
  })

  it('refuses an X-End-User-IP that is not an IPv4 or IPv6 address with 400, on every storefront operation', async () => {
    const a = await createTestSeller(shop)
    for (const value of ['not-an-ip', '999.1.1.1', '10.0.0.1, 10.0.0.2', '::g', '1.2.3.4/24']) {
      const login = await from(a, 'login', { email: 'x@example.com', password: 'wrong password' }, value)
      expect(login.statusCode, value).toBe(400)
      expect(login.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'headers.x-end-user-ip' }] })
      const events = await shop.inject({ method: 'GET', url: '/stf/v1/events', headers: { ...a.auth, 'x-end-user-ip': value } })
      expect(events.statusCode, value).toBe(400)
    }
    const ok = await shop.inject({ method: 'GET', url: '/stf/v1/events', headers: { ...a.auth, 'x-end-user-ip': '::ffff:192.0.2.1' } })
    expect(ok.statusCode).toBe(200)
  })

  it('is believed only with the seller credentials: without them the call is refused first', async () => {
    const res = await shop.inject({ method: 'GET', url: '/stf/v1/events', headers: { 'x-end-user-ip': 'not-an-ip' } })
    expect(res.statusCode).toBe(401)
  })
})
