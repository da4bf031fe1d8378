import { randomBytes, randomInt } from 'node:crypto'
import { connect } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eq, sql } from 'drizzle-orm'
import { staffKnownAddresses } from '../../src/domain/staff/sessions.table.js'
import { buildTestApp } from '../build-app.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { createStaff } from '../support/staff.js'

// Low limits so that they are reached in a few requests; each test speaks from its own
// client IP (X-Forwarded-For from a trusted proxy) so tests do not share counters.
const LIMITS = {
  TRUST_PROXY: '127.0.0.1',
  IAM_RATE_LIMIT_WINDOW_SECONDS: '60',
  IAM_ACCOUNT_RATE_LIMIT_WINDOW_SECONDS: '60',
  IAM_LOGIN_LIMIT_PER_IP: '3',
  IAM_LOGIN_FAILURES_PER_ACCOUNT: '3',
  IAM_REFRESH_LIMIT_PER_IP: '2',
  IAM_PASSWORD_LIMIT_PER_IP: '3',
  IAM_RECOVER_LIMIT_PER_ACCOUNT: '2',
}

const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`

const post = (app: FastifyInstance, url: string, payload: unknown, ip: string) =>
  app.inject({ method: 'POST', url, payload: payload as Record<string, unknown>, headers: { 'x-forwarded-for': ip } })

const login = (app: FastifyInstance, username: string, password: string, ip = freshIp()) => post(app, '/iam/v1/auth/login', { username, password }, ip)

function expectLimited(res: Awaited<ReturnType<typeof post>>, windowSeconds = 60) {
  expect(res.statusCode).toBe(429)
  expect(res.json()).toMatchObject({ code: 'rate_limited', trace_id: res.headers['x-trace-id'] })
  const retryAfter = Number(res.headers['retry-after'])
  expect(Number.isInteger(retryAfter)).toBe(true)
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds)
}

describe('rate limits (in process memory)', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    await resetDatabase(await testDatabase())
    app = await buildTestApp({ env: LIMITS })
  })
  afterAll(() => app?.close())

  it('limits logins per client IP, whatever the account', async () => {
    const ip = freshIp()
    for (let i = 0; i < 3; i++) expect((await login(app, `someone-${i}@example.test`, 'wrong-password', ip)).statusCode).toBe(401)
    expectLimited(await login(app, 'another@example.test', 'wrong-password', ip))
    expect((await login(app, 'another@example.test', 'wrong-password', freshIp())).statusCode).toBe(401)
  })

  it('limits failed logins per account, from any IP and in any case, then refuses even the right password', async () => {
    const staff = await createStaff(app, { password: 'the-right-password' })
    for (let i = 0; i < 3; i++) expect((await login(app, staff.user.email, 'wrong-password')).statusCode).toBe(401)
    expectLimited(await login(app, staff.user.email.toUpperCase(), 'the-right-password'))
    // Another account is not affected.
    const other = await createStaff(app, { password: 'the-right-password' })
    expect((await login(app, other.user.email, 'the-right-password')).statusCode).toBe(200)
  })

  it('treats an unknown email like a known one', async () => {
    for (let i = 0; i < 3; i++) expect((await login(app, 'ghost@example.test', 'wrong-password')).statusCode).toBe(401)
    expectLimited(await login(app, 'ghost@example.test', 'wrong-password'))
  })

  it('does not hold successful logins against the account', async () => {
    const staff = await createStaff(app, { password: 'the-right-password' })
    for (let i = 0; i < 5; i++) expect((await login(app, staff.user.email, 'the-right-password')).statusCode).toBe(200)
  })

  it('limits refreshes per client IP', async () => {
    const ip = freshIp()
    for (let i = 0; i < 2; i++) expect((await post(app, '/iam/v1/auth/refresh', { refresh_token: `nope-${i}` }, ip)).statusCode).toBe(401)
    expectLimited(await post(app, '/iam/v1/auth/refresh', { refresh_token: 'nope' }, ip))
  })

  it('lets the owner in during a lock from an address it signed in from, and ends the lock', async () => {
    const staff = await createStaff(app, { password: 'the-right-password' })
    const home = freshIp()
    expect((await login(app, staff.user.email, 'the-right-password', home)).statusCode).toBe(200)
    for (let i = 0; i < 3; i++) expect((await login(app, staff.user.email, 'wrong-password')).statusCode).toBe(401)
    // Locked for strangers, even with the right password, and for a wrong one from home.
    expectLimited(await login(app, staff.user.email, 'the-right-password'))
    expectLimited(await login(app, staff.user.email, 'wrong-password', home))
    // The owner, from home, with the right password: in, and the lock is over.
    expect((await login(app, staff.user.email, 'the-right-password', home)).statusCode).toBe(200)
    expect((await login(app, staff.user.email, 'the-right-password')).statusCode).toBe(200)
    expect((await login(app, staff.user.email, 'wrong-password')).statusCode).toBe(401)
  })

  it('forgets an address after 30 days, and keeps no address in clear', async () => {
    const staff = await createStaff(app, { password: 'the-right-password' })
    const home = freshIp()
    expect((await login(app, staff.user.email, 'the-right-password', home)).statusCode).toBe(200)
    const [known] = await app.db.select().from(staffKnownAddresses).where(eq(staffKnownAddresses.userId, staff.user.id))
    expect(known!.addressHash).not.toContain(home)
    await app.db.update(staffKnownAddresses).set({ lastSignedInAt: sql`now() - interval '31 days'` }).where(eq(staffKnownAddresses.userId, staff.user.id))
    for (let i = 0; i < 3; i++) expect((await login(app, staff.user.email, 'wrong-password')).statusCode).toBe(401)
    expectLimited(await login(app, staff.user.email, 'the-right-password', home))
  })

  it('limits recovery emails per address, known or not, and answers alike until then', async () => {
    const staff = await createStaff(app)
    for (const email of [staff.user.email, 'nobody-known@example.test']) {
      for (let i = 0; i < 2; i++) expect((await post(app, '/iam/v1/password/recover', { email }, freshIp())).statusCode).toBe(200)
      expectLimited(await post(app, '/iam/v1/password/recover', { email: email.toUpperCase() }, freshIp()))
    }
  })

  it('limits recover and reset per client IP', async () => {
    const ip = freshIp()
    for (let i = 0; i < 3; i++) {
      expect((await post(app, '/iam/v1/password/recover', { email: `x${i}-${randomBytes(3).toString('hex')}@example.test` }, ip)).statusCode).toBe(200)
    }
    expectLimited(await post(app, '/iam/v1/password/recover', { email: 'y@example.test' }, ip))
    const other = freshIp()
    for (let i = 0; i < 3; i++) {
      expect((await post(app, '/iam/v1/password/reset', { token: `t${i}`, password: 'a-new-password' }, other)).statusCode).toBe(401)
    }
    expectLimited(await post(app, '/iam/v1/password/reset', { token: 't', password: 'a-new-password' }, other))
  })
})

const REDIS_URL = 'redis://127.0.0.1:6379'

/**
 * 40 wrong logins for one account at once, each from its own client address, against the default
 * limit of 10 failures per account: the attempts are counted before any password is checked, so
 * at most 10 are checked (401) and the rest are refused (429).
 */
async function raceOneAccount(env: Record<string, string>) {
  const app = await buildTestApp({ env: { TRUST_PROXY: '127.0.0.1', ...env } })
  try {
    const staff = await createStaff(app, { password: 'the-right-password' })
    const results = await Promise.all(Array.from({ length: 40 }, () => login(app, staff.user.email, 'wrong-password')))
    const statuses = results.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10)
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0)
    for (const res of results.filter((r) => r.statusCode !== 401)) expectLimited(res, 900)
  } finally {
    await app.close()
  }
}

describe('the per-account limit under concurrency', () => {
  it('checks at most 10 of 40 concurrent wrong passwords from 40 addresses (in process memory)', async () => {
    await raceOneAccount({})
  })
})

function redisReachable(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: 6379, timeout: 500 })
    const done = (reachable: boolean) => {
      socket.destroy()
      resolve(reachable)
    }
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
    socket.once('timeout', () => done(false))
  })
}

describe('rate limits shared through Redis', () => {
  let up = false
  let replicas: FastifyInstance[] = []
  let redis: Redis | undefined
  // A client IP of its own per run, so runs and parallel workers never share counters.
  const privateIp = () => `172.${randomInt(16, 32)}.${randomInt(256)}.${randomInt(1, 255)}`
  const ip = privateIp()
  const warmIps = [privateIp(), privateIp()]

  beforeAll(async () => {
    up = await redisReachable()
    if (!up) return
    await resetDatabase(await testDatabase())
    const env = { ...LIMITS, REDIS_URL }
    replicas = [await buildTestApp({ env }), await buildTestApp({ env })]
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 })
    await redis.connect()
    // Each replica connects to Redis in the background (and lets requests through while it
    // cannot reach it): wait until each one has written a counter.
    for (const [index, replica] of replicas.entries()) {
      const warmIp = warmIps[index]!
      for (let attempt = 0; attempt < 50; attempt++) {
        await post(replica, '/iam/v1/auth/refresh', { refresh_token: 'warm-up' }, warmIp)
        if ((await redis.keys(`boxoffice:rl:*${warmIp}`)).length > 0) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  })
  afterAll(async () => {
    if (redis) {
      for (const used of [ip, ...warmIps]) {
        const keys = await redis.keys(`boxoffice:rl:*${used}`)
        if (keys.length > 0) await redis.del(...keys)
      }
      await redis.quit()
    }
    await Promise.all(replicas.map((app) => app.close()))
  })

  it('counts the requests of one client across two replicas', async (context) => {
    if (!up) context.skip('Redis is not reachable at 127.0.0.1:6379; start it to run this test')
    const [a, b] = replicas as [FastifyInstance, FastifyInstance]
    const run = randomBytes(4).toString('hex')
    expect((await login(a, `r1-${run}@example.test`, 'wrong-password', ip)).statusCode).toBe(401)
    expect((await login(a, `r2-${run}@example.test`, 'wrong-password', ip)).statusCode).toBe(401)
    expect((await login(b, `r3-${run}@example.test`, 'wrong-password', ip)).statusCode).toBe(401)
    expectLimited(await login(b, `r4-${run}@example.test`, 'wrong-password', ip))
    expectLimited(await login(a, `r5-${run}@example.test`, 'wrong-password', ip))
    // Keys read <prefix>rl:<limit>:<key>.
    expect(await redis!.keys(`boxoffice:rl:*${ip}`)).toEqual([`boxoffice:rl:iam-login-ip:${ip}`])
  })

  it('checks at most 10 of 40 concurrent wrong passwords from 40 addresses, counted in Redis', async (context) => {
    if (!up) context.skip('Redis is not reachable at 127.0.0.1:6379; start it to run this test')
    const prefix = `boxoffice-test-${randomBytes(4).toString('hex')}:`
    try {
      await raceOneAccount({ REDIS_URL, REDIS_KEY_PREFIX: prefix })
      const keys = await redis!.keys(`${prefix}*`)
      expect(keys.some((key) => key.startsWith(`${prefix}rl:iam-login-account:`))).toBe(true)
      expect(keys.every((key) => /^[^:]+:rl:iam-[a-z-]+:[^:]+$/.test(key))).toBe(true)
    } finally {
      const keys = await redis!.keys(`${prefix}*`)
      if (keys.length > 0) await redis!.del(...keys)
    }
  })
})
