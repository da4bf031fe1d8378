import { randomBytes, randomInt } from 'node:crypto'
import argon2 from 'argon2'
import { and, eq, sql } from 'drizzle-orm'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { customers } from '../../src/domain/customers/customers.table.js'
import { staffUsers } from '../../src/domain/staff/users.table.js'
import { ZPassword } from '../../src/iam/password.schemas.js'
import { COMMON_PASSWORDS } from '../../src/platform/auth/common-passwords.js'
import { COMMON_PASSWORD_MESSAGE } from '../../src/platform/auth/passwords.js'
import { loadConfig } from '../../src/platform/config.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { ZRegisterRequest } from '../../src/storefront/auth.schemas.js'
import { buildTestApp, useTestApp } from '../build-app.js'
import { createTestCustomer } from '../factories/customers.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { asAdmin, createStaff, type TestStaff } from '../support/staff.js'
import { NO_RATE_LIMITS } from '../support/limits.js'

/**
 * Credentials: how passwords are stored and chosen, how guessing is slowed down, and that a
 * login tells an unknown account from a wrong password neither by its answer nor by its time.
 */
const ctx = useTestApp({ env: NO_RATE_LIMITS })

let seller: TestSeller
let admin: TestStaff

beforeAll(async () => {
  seller = await createTestSeller(ctx.app)
  admin = await asAdmin(ctx.app)
})

const strong = () => `pass-${randomBytes(9).toString('base64url')}`
const post = (url: string, payload: unknown, headers: Record<string, string> = {}, remoteAddress?: string) =>
  ctx.app.inject({ method: 'POST', url, headers, payload: payload as object, ...(remoteAddress ? { remoteAddress } : {}) })

/** The parameters of a PHC-formatted argon2 hash. */
function argon2Params(hash: string) {
  const match = /^\$(argon2(?:id|i|d))\$v=(\d+)\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(hash)
  if (!match) throw new Error(`not an argon2 hash: ${hash.slice(0, 20)}...`)
  const [, type, version, m, t, p, salt, digest] = match
  return {
    type,
    version: Number(version),
    m: Number(m),
    t: Number(t),
    p: Number(p),
    saltBytes: Buffer.from(salt!, 'base64').length,
    hashBytes: Buffer.from(digest!, 'base64').length,
  }
}

function expectStrongHash(hash: string | null) {
  const params = argon2Params(hash ?? '')
  expect(params.type).toBe('argon2id')
  expect(params.version).toBe(0x13)
  expect(params.m).toBeGreaterThanOrEqual(19_456)
  expect(params.t).toBeGreaterThanOrEqual(2)
  expect(params.p).toBeGreaterThanOrEqual(1)
  expect(params.saltBytes).toBeGreaterThanOrEqual(16)
  expect(params.hashBytes).toBeGreaterThanOrEqual(32)
}

const customerHash = async (email: string) =>
  (
    await ctx.app.db
      .select()
      .from(customers)
      .where(and(eq(customers.sellerId, seller.seller.id), eq(customers.email, email)))
  )[0]!.passwordHash
const staffHash = async (id: string) => (await ctx.app.db.select().from(staffUsers).where(eq(staffUsers.id, id)))[0]!.passwordHash

/** The token of the newest link in an email to `to`. */
async function mailedToken(to: string) {
  const rows = await ctx.app.db.select().from(outboxEmails).where(eq(outboxEmails.to, to))
  const text = rows.sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime()).at(-1)!.text
  return decodeURIComponent(/[?&]token=([A-Za-z0-9_%-]+)/.exec(text)![1]!)
}

describe('password storage', () => {
  it('stores argon2id with at least m=19456 KiB, t=2, p=1 for customers and staff, on every way a password is set', async () => {
    const email = `hash-${randomInt(1e9)}@example.com`
    const register = await post('/stf/v1/auth/register', { email, password: strong(), first_name: 'H', last_name: 'A' }, seller.auth)
    expect(register.statusCode, register.body).toBe(201)
    expectStrongHash(await customerHash(email))

    expect((await post('/stf/v1/auth/forgot-password', { email }, seller.auth)).statusCode).toBe(200)
    const reset = await post('/stf/v1/auth/reset-password', { token: await mailedToken(email), password: strong() }, seller.auth)
    expect(reset.statusCode, reset.body).toBe(200)
    expectStrongHash(await customerHash(email))

    const staffEmail = `staff-${randomInt(1e9)}@example.test`
    const created = await post('/iam/v1/users', { name: 'S', email: staffEmail, password: strong() }, admin.auth)
    expect(created.statusCode, created.body).toBe(201)
    const id = created.json().id as string
    expectStrongHash(await staffHash(id))
    const changed = await ctx.app.inject({ method: 'PUT', url: `/iam/v1/users/${id}`, headers: admin.auth, payload: { password: strong() } })
    expect(changed.statusCode, changed.body).toBe(200)
    expectStrongHash(await staffHash(id))
    expect((await post('/iam/v1/password/recover', { email: staffEmail })).statusCode).toBe(200)
    const staffReset = await post('/iam/v1/password/reset', { token: await mailedToken(staffEmail), password: strong() })
    expect(staffReset.statusCode, staffReset.body).toBe(200)
    expectStrongHash(await staffHash(id))
  })

  // What an older release, or an import from another system, may have left behind.
  const legacy = {
    'argon2id, 4 MiB, 1 pass': { type: argon2.argon2id, memoryCost: 4096, timeCost: 1, parallelism: 1 },
    'argon2i at today’s cost': { type: argon2.argon2i, memoryCost: 19_456, timeCost: 2, parallelism: 1 },
    'argon2d at today’s cost': { type: argon2.argon2d, memoryCost: 19_456, timeCost: 2, parallelism: 1 },
  } as const

  it.each(Object.entries(legacy))('re-hashes a weaker stored hash (%s) at the next login, for customers and staff', async (_, options) => {
    const password = strong()
    const weak = await argon2.hash(password, options)
    const customer = await createTestCustomer(ctx.app, seller, { password })
    await ctx.app.db.update(customers).set({ passwordHash: weak }).where(eq(customers.id, customer.customer.id))
    const staff = await createStaff(ctx.app, { password })
    await ctx.app.db.update(staffUsers).set({ passwordHash: weak }).where(eq(staffUsers.id, staff.user.id))

    for (let round = 0; round < 2; round++) {
      expect((await post('/stf/v1/auth/login', { email: customer.customer.email, password }, seller.auth)).statusCode).toBe(200)
      expect((await post('/iam/v1/auth/login', { username: staff.user.email, password })).statusCode).toBe(200)
    }
    for (const hash of [await customerHash(customer.customer.email), await staffHash(staff.user.id)]) {
      expect(hash).not.toBe(weak)
      expectStrongHash(hash)
    }
  })

  it('keeps a stored hash that is stronger than today’s parameters as it is', async () => {
    const password = strong()
    const stronger = await argon2.hash(password, { type: argon2.argon2id, memoryCost: 65_536, timeCost: 3, parallelism: 1 })
    const customer = await createTestCustomer(ctx.app, seller, { password })
    await ctx.app.db.update(customers).set({ passwordHash: stronger }).where(eq(customers.id, customer.customer.id))
    const staff = await createStaff(ctx.app, { password })
    await ctx.app.db.update(staffUsers).set({ passwordHash: stronger }).where(eq(staffUsers.id, staff.user.id))
    expect((await post('/stf/v1/auth/login', { email: customer.customer.email, password }, seller.auth)).statusCode).toBe(200)
    expect((await post('/iam/v1/auth/login', { username: staff.user.email, password })).statusCode).toBe(200)
    expect(await customerHash(customer.customer.email)).toBe(stronger)
    expect(await staffHash(staff.user.id)).toBe(stronger)
  })
})

describe('common passwords', () => {
  it('ships the 3,000 most common passwords', () => {
    expect(COMMON_PASSWORDS).toHaveLength(3000)
    expect(new Set(COMMON_PASSWORDS).size).toBe(3000)
    expect(COMMON_PASSWORDS.slice(0, 3)).toEqual(['123456', 'password', '12345678'])
  })

  it('refuses every one of them, in any case, wherever a customer or a member of staff chooses a password', () => {
    const customerPassword = ZRegisterRequest.shape.password
    for (const common of COMMON_PASSWORDS) {
      for (const candidate of new Set([common, common.toUpperCase(), common[0]!.toUpperCase() + common.slice(1)])) {
        expect(ZPassword.safeParse(candidate).success, candidate).toBe(false)
        expect(customerPassword.safeParse(candidate).success, candidate).toBe(false)
      }
    }
    expect(ZPassword.safeParse('correct horse battery staple').success).toBe(true)
    expect(customerPassword.safeParse('correct horse battery staple').success).toBe(true)
    // ... and as the bootstrap admin's password.
    expect(() => loadConfig({ JWT_SECRET: 'x'.repeat(32), ADMIN_EMAIL: 'root@example.test', ADMIN_PASSWORD: 'Password1' })).toThrowError(
      /ADMIN_PASSWORD .*common/,
    )
  })

  it('answers 400 validation_error naming the reason on every route that sets a password, and creates nothing', async () => {
    // The eight characters and longer ones (shorter ones fail on length first), and some others.
    const long = COMMON_PASSWORDS.filter((p) => p.length >= 8)
    expect(long.length).toBeGreaterThan(600)
    const sample = [...long.slice(0, 5), ...Array.from({ length: 10 }, () => long[randomInt(long.length)]!), 'PASSWORD1', 'Qwerty123', 'ILoveYou']
    const target = await createStaff(ctx.app)
    const routes: [string, (password: string) => Promise<LightMyRequestResponse>][] = [
      [
        'POST /stf/v1/auth/register',
        (password) => post('/stf/v1/auth/register', { email: `c-${randomInt(1e9)}@example.com`, password, first_name: 'C', last_name: 'P' }, seller.auth),
      ],
      ['POST /stf/v1/auth/reset-password', (password) => post('/stf/v1/auth/reset-password', { token: 'x'.repeat(43), password }, seller.auth)],
      ['POST /iam/v1/users', (password) => post('/iam/v1/users', { name: 'C', email: `c-${randomInt(1e9)}@example.test`, password }, admin.auth)],
      [
        'PUT /iam/v1/users/{id}',
        (password) => ctx.app.inject({ method: 'PUT', url: `/iam/v1/users/${target.user.id}`, headers: admin.auth, payload: { password } }),
      ],
      ['POST /iam/v1/password/reset', (password) => post('/iam/v1/password/reset', { token: 'x'.repeat(43), password })],
    ]
    const counts = async () => {
      const [c] = await ctx.app.db.select({ n: sql<number>`count(*)::int` }).from(customers)
      const [s] = await ctx.app.db.select({ n: sql<number>`count(*)::int` }).from(staffUsers)
      return [c!.n, s!.n, await staffHash(target.user.id)]
    }
    const before = await counts()
    for (const [route, send] of routes) {
      for (const password of sample) {
        const res = await send(password)
        expect(res.statusCode, `${route} ${password}`).toBe(400)
        expect(res.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'password', message: COMMON_PASSWORD_MESSAGE }] })
      }
    }
    expect(await counts()).toEqual(before)
  })
})

describe('passwords over 128 characters', () => {
  it('are refused with 400 on every route that takes a password, before any argon2 work', async () => {
    const hash = vi.spyOn(argon2, 'hash')
    const verify = vi.spyOn(argon2, 'verify')
    try {
      const staff = await createStaff(ctx.app)
      hash.mockClear()
      verify.mockClear()
      const customer = await createTestCustomer(ctx.app, seller)
      hash.mockClear()
      verify.mockClear()
      for (const password of ['a'.repeat(129), `${'é'.repeat(129)}`, 'x'.repeat(100 * 1024)]) {
        const requests = [
          post('/stf/v1/auth/register', { email: `l-${randomInt(1e9)}@example.com`, password, first_name: 'L', last_name: 'P' }, seller.auth),
          post('/stf/v1/auth/login', { email: customer.customer.email, password }, seller.auth),
          post('/stf/v1/auth/reset-password', { token: 'x'.repeat(43), password }, seller.auth),
          post('/iam/v1/auth/login', { username: staff.user.email, password }),
          post('/iam/v1/users', { name: 'L', email: `l-${randomInt(1e9)}@example.test`, password }, admin.auth),
          ctx.app.inject({ method: 'PUT', url: `/iam/v1/users/${staff.user.id}`, headers: admin.auth, payload: { password } }),
          post('/iam/v1/password/reset', { token: 'x'.repeat(43), password }),
        ]
        for (const res of await Promise.all(requests)) {
          expect(res.statusCode, res.body).toBe(400)
          expect(res.json().code).toBe('validation_error')
        }
      }
      expect(hash).not.toHaveBeenCalled()
      expect(verify).not.toHaveBeenCalled()
      // The spies see real work: one login does one verification.
      expect((await post('/stf/v1/auth/login', { email: customer.customer.email, password: customer.password }, seller.auth)).statusCode).toBe(200)
      expect(verify).toHaveBeenCalledTimes(1)
    } finally {
      hash.mockRestore()
      verify.mockRestore()
    }
  })
})

describe('rate limits on guessing', () => {
  // Small limits; every address below is made up, and each test uses addresses of its own.
  const LIMITS = {
    IAM_LOGIN_LIMIT_PER_IP: '5',
    IAM_LOGIN_FAILURES_PER_ACCOUNT: '3',
    IAM_RECOVER_LIMIT_PER_ACCOUNT: '2',
    STF_LOGIN_LIMIT_PER_IP: '5',
    STF_LOGIN_LIMIT_PER_EMAIL: '3',
    STF_EMAIL_LIMIT_PER_IP: '100',
    STF_EMAIL_LIMIT_PER_EMAIL: '2',
    // Customer limits per connection (no X-End-User-IP here) at the limits as set.
    STF_LIMIT_FACTOR_WITHOUT_END_USER_IP: '1',
  }
  let limited: FastifyInstance
  let proxied: FastifyInstance
  let shop: TestSeller
  beforeAll(async () => {
    limited = await buildTestApp({ env: LIMITS })
    proxied = await buildTestApp({ env: { ...LIMITS, TRUST_PROXY: '127.0.0.1' } })
    shop = await createTestSeller(ctx.app)
  })
  afterAll(async () => {
    await limited?.close()
    await proxied?.close()
  })

  let next = 0
  const ip = () => `198.51.${Math.floor(++next / 250)}.${(next % 250) + 1}`
  type Attempt = (app: FastifyInstance, account: string, from: { remoteAddress: string; forwardedFor?: string }) => Promise<LightMyRequestResponse>
  const send = (
    app: FastifyInstance,
    url: string,
    payload: object,
    from: { remoteAddress: string; forwardedFor?: string },
    headers: Record<string, string> = {},
  ) =>
    app.inject({
      method: 'POST',
      url,
      payload,
      remoteAddress: from.remoteAddress,
      headers: { ...headers, ...(from.forwardedFor ? { 'x-forwarded-for': from.forwardedFor } : {}) },
    })
  const guesses: Record<string, Attempt> = {
    'staff login': (app, account, from) => send(app, '/iam/v1/auth/login', { username: account, password: 'wrong password guess' }, from),
    'customer login': (app, account, from) => send(app, '/stf/v1/auth/login', { email: account, password: 'wrong password guess' }, from, shop.auth),
  }
  const account = () => `victim-${randomInt(1e9)}@example.com`

  function expectLimited(res: LightMyRequestResponse) {
    expect(res.statusCode, res.body).toBe(429)
    expect(res.json().code).toBe('rate_limited')
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  }

  it.each(Object.keys(guesses))('%s: per account, whatever address the guesses come from', async (name) => {
    const guess = guesses[name]!
    const victim = account()
    for (let n = 0; n < 3; n++) expect((await guess(limited, victim, { remoteAddress: ip() })).statusCode).toBe(401)
    expectLimited(await guess(limited, victim, { remoteAddress: ip() }))
    // Another account, from the same addresses, is not held back.
    expect((await guess(limited, account(), { remoteAddress: ip() })).statusCode).toBe(401)
  })

  it.each(Object.keys(guesses))('%s: per address, whatever accounts it tries, and X-Forwarded-For does not help', async (name) => {
    const guess = guesses[name]!
    const from = ip()
    for (let n = 0; n < 5; n++) {
      expect((await guess(limited, account(), { remoteAddress: from, forwardedFor: ip() })).statusCode).toBe(401)
    }
    expectLimited(await guess(limited, account(), { remoteAddress: from, forwardedFor: ip() }))
    expectLimited(await guess(limited, account(), { remoteAddress: from }))
  })

  it.each(Object.keys(guesses))('%s: the addresses of one IPv6 /64 count as one address', async (name) => {
    const guess = guesses[name]!
    const prefix = `2001:db8:${(++next).toString(16)}:1`
    for (let n = 1; n <= 5; n++) expect((await guess(limited, account(), { remoteAddress: `${prefix}::${n.toString(16)}` })).statusCode).toBe(401)
    expectLimited(await guess(limited, account(), { remoteAddress: `${prefix}:ffff:ffff:ffff:fffe` }))
  })

  it.each(Object.keys(guesses))('%s: X-Forwarded-For counts only from a proxy in TRUST_PROXY', async (name) => {
    const guess = guesses[name]!
    // Through the trusted proxy every client has its own counter...
    for (let n = 0; n < 8; n++) expect((await guess(proxied, account(), { remoteAddress: '127.0.0.1', forwardedFor: ip() })).statusCode).toBe(401)
    // ... and one client behind it is limited by its own address.
    const client = ip()
    for (let n = 0; n < 5; n++) expect((await guess(proxied, account(), { remoteAddress: '127.0.0.1', forwardedFor: client })).statusCode).toBe(401)
    expectLimited(await guess(proxied, account(), { remoteAddress: '127.0.0.1', forwardedFor: client }))
    // A peer that is not the proxy cannot pick its address with the header.
    const untrusted = ip()
    for (let n = 0; n < 5; n++) expect((await guess(proxied, account(), { remoteAddress: untrusted, forwardedFor: ip() })).statusCode).toBe(401)
    expectLimited(await guess(proxied, account(), { remoteAddress: untrusted, forwardedFor: ip() }))
  })

  it('reset and sign-in emails: per account, whatever address asks', async () => {
    const victim = account()
    for (const [url, headers, limit] of [
      ['/stf/v1/auth/forgot-password', shop.auth, 2],
      ['/iam/v1/password/recover', {}, 2],
    ] as const) {
      for (let n = 0; n < limit; n++) expect((await send(limited, url, { email: victim }, { remoteAddress: ip() }, headers)).statusCode).toBe(200)
      expectLimited(await send(limited, url, { email: victim }, { remoteAddress: ip() }, headers))
    }
  })
})

describe('an unknown account and a wrong password', () => {
  type Login = { name: string; unknown: () => Promise<LightMyRequestResponse>; wrong: () => Promise<LightMyRequestResponse>; status?: number }
  let logins: Login[]
  /** The calls that take an email and must not tell whether it has an account. */
  let recoveries: Login[]
  beforeAll(async () => {
    const customer = await createTestCustomer(ctx.app, seller)
    const staff = await createStaff(ctx.app)
    const nobody = (domain: string) => `nobody-${randomInt(1e9)}@${domain}`
    recoveries = [
      ...['forgot-password', 'magic-link'].map((path) => ({
        name: `customer ${path}`,
        status: 200,
        unknown: () => post(`/stf/v1/auth/${path}`, { email: nobody('example.com') }, seller.auth),
        wrong: () => post(`/stf/v1/auth/${path}`, { email: customer.customer.email }, seller.auth),
      })),
      {
        name: 'staff password recover',
        status: 200,
        unknown: () => post('/iam/v1/password/recover', { email: nobody('example.test') }),
        wrong: () => post('/iam/v1/password/recover', { email: staff.user.email }),
      },
    ]
    logins = [
      {
        name: 'customer',
        unknown: () => post('/stf/v1/auth/login', { email: `nobody-${randomInt(1e9)}@example.com`, password: 'a wrong password' }, seller.auth),
        wrong: () => post('/stf/v1/auth/login', { email: customer.customer.email, password: 'a wrong password' }, seller.auth),
      },
      {
        name: 'staff',
        unknown: () => post('/iam/v1/auth/login', { username: `nobody-${randomInt(1e9)}@example.test`, password: 'a wrong password' }),
        wrong: () => post('/iam/v1/auth/login', { username: staff.user.email, password: 'a wrong password' }),
      },
    ]
  })

  const comparable = (res: LightMyRequestResponse) => {
    // The per-address counter moves with every request, whoever it names.
    const { date: _d, 'x-trace-id': _t, 'x-ratelimit-remaining': _r, 'x-ratelimit-reset': _s, ...headers } = res.headers
    const { trace_id: _, ...body } = res.json()
    return { status: res.statusCode, headers, body }
  }

  it('get the same answer: status, headers and body', async () => {
    for (const login of logins) {
      const [unknown, wrong] = [await login.unknown(), await login.wrong()]
      expect(comparable(unknown), login.name).toEqual(comparable(wrong))
      expect(unknown.statusCode).toBe(401)
      expect(unknown.json().code).toBe('invalid_credentials')
    }
  })

  it('take the same time, statistically (interleaved samples, Mann-Whitney U)', async () => {
    await expectSameTimes(logins)
  })

  it('asking a reset or sign-in link for an address with and without an account: same answer, same time', async () => {
    for (const recovery of recoveries) {
      const [unknown, known] = [await recovery.unknown(), await recovery.wrong()]
      expect(comparable(unknown), recovery.name).toEqual(comparable(known))
      expect(unknown.statusCode).toBe(200)
    }
    await expectSameTimes(recoveries, 16)
  })

  async function expectSameTimes(cases: Login[], SAMPLES = 30) {
    for (const login of cases) {
      const timed = async (attempt: () => Promise<LightMyRequestResponse>) => {
        const started = process.hrtime.bigint()
        const res = await attempt()
        expect(res.statusCode).toBe(login.status ?? 401)
        return Number(process.hrtime.bigint() - started) / 1e6
      }
      // Warm both paths (the dummy hash is computed on first use).
      await timed(login.unknown)
      await timed(login.wrong)
      const unknown: number[] = []
      const wrong: number[] = []
      for (let n = 0; n < SAMPLES; n++) {
        // Alternating which goes first cancels drift in the machine's load.
        if (n % 2) {
          unknown.push(await timed(login.unknown))
          wrong.push(await timed(login.wrong))
        } else {
          wrong.push(await timed(login.wrong))
          unknown.push(await timed(login.unknown))
        }
      }
      const z = mannWhitneyZ(unknown, wrong)
      const [mu, mw] = [median(unknown), median(wrong)]
      const summary = `${login.name}: median unknown ${mu.toFixed(1)} ms, known ${mw.toFixed(1)} ms, z=${z.toFixed(2)}`
      console.info(`timing, ${summary}`)
      // Skipping argon2 for an unknown account makes a login ~10x faster (|z| ~6.6); skipping the
      // writes of a recovery request, ~3x (|z| ~5), and fewer of them, ~1.5 ms (|z| ~3.5).
      expect(Math.abs(mu - mw), summary).toBeLessThanOrEqual(0.2 * Math.max(mu, mw))
      expect(Math.abs(z), summary).toBeLessThan(3.5)
    }
  }
})

const median = (xs: number[]) => {
  const sorted = [...xs].sort((x, y) => x - y)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The normal approximation of the Mann-Whitney U statistic: |z| beyond ~3.3 means p < 0.001. */
function mannWhitneyZ(xs: number[], ys: number[]) {
  const all = [...xs.map((v) => ({ v, x: true })), ...ys.map((v) => ({ v, x: false }))].sort((p, q) => p.v - q.v)
  let rankSumX = 0
  for (let i = 0; i < all.length; ) {
    let j = i
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j++
    const rank = (i + j) / 2 + 1
    for (let k = i; k <= j; k++) if (all[k]!.x) rankSumX += rank
    i = j + 1
  }
  const [n1, n2] = [xs.length, ys.length]
  const u = rankSumX - (n1 * (n1 + 1)) / 2
  const mean = (n1 * n2) / 2
  const sd = Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12)
  return (u - mean) / sd
}
