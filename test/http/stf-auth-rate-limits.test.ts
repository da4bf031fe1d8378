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
    const short = await buildTestApp({ env: { STF_RATE_LIMIT_WINDOW_SECONDS: '1', STF_REFRESH_LIMIT_PER_IP: '1' } })
    try {
      const a = await createTestSeller(short)
      const refresh = () => postAuth(short, a, 'refresh', { refresh_token: 'x'.repeat(43) })
      expect((await refresh()).statusCode).toBe(401)
      expect((await refresh()).statusCode).toBe(429)
      await new Promise((resolve) => setTimeout(resolve, 1100))
      expect((await refresh()).statusCode).toBe(401)
    } finally {
      await short.close()
    }
  })
})
