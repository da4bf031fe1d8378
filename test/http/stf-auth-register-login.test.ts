import { expectComparableWork } from '../support/comparable-work.js'
import { and, eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { customerOneTimeTokens } from '../../src/domain/customers/customer-tokens.table.js'
import { customers } from '../../src/domain/customers/customers.table.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import argon2 from 'argon2'
import { useTestApp } from '../build-app.js'
import { createTestCustomer } from '../factories/customers.js'
import { type TestSeller, useTwoSellers } from '../factories/sellers.js'
import { errorBody, expectError, getMe, postAuth } from '../support/customer-auth.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx, { a: { name: 'Seller A' }, b: { name: 'Seller B' } })

const register = (seller: TestSeller, body: Record<string, unknown>) => postAuth(ctx.app, seller, 'register', body)
const newcomer = (email: string, overrides: Record<string, unknown> = {}) => ({
  email,
  password: 'correct horse battery',
  first_name: 'Ana',
  last_name: 'Souza',
  ...overrides,
})

describe('POST /stf/v1/auth/register', () => {
  it('creates a customer of the seller and answers 201 with it', async () => {
    const res = await register(a, newcomer('ana@example.com'))
    expect(res.statusCode, res.body).toBe(201)
    const { customer } = res.json()
    expect(customer).toEqual({
      id: expect.any(String),
      email: 'ana@example.com',
      first_name: 'Ana',
      last_name: 'Souza',
      email_verified: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    })
    const [row] = await ctx.app.db.select().from(customers).where(eq(customers.id, customer.id))
    expect(row!.sellerId).toBe(a.seller.id)
    expect(row!.passwordHash).toMatch(/^\$argon2id\$/)
    expect(JSON.stringify(row)).not.toContain('correct horse battery')
    const audit = await ctx.app.db.select().from(auditLog).where(eq(auditLog.targetId, customer.id))
    expect(audit.map((e) => e.action)).toEqual(['stf.customer.registered'])
  })

  it('queues the verification email in the same transaction, with a hashed single-use token', async () => {
    const res = await register(a, newcomer('queued@example.com'))
    const { customer } = res.json()
    const mails = await ctx.app.db.select().from(outboxEmails).where(eq(outboxEmails.to, 'queued@example.com'))
    expect(mails).toHaveLength(1)
    expect(mails[0]!.kind).toBe('stf.verify_email')
    const token = /verify-email\?token=([A-Za-z0-9_-]+)/.exec(mails[0]!.text)![1]!
    expect(mails[0]!.text).toContain(`${a.seller.storefrontUrl}/verify-email?token=${token}`)
    const tokens = await ctx.app.db.select().from(customerOneTimeTokens).where(eq(customerOneTimeTokens.customerId, customer.id))
    expect(tokens).toHaveLength(1)
    expect(tokens[0]).toMatchObject({ purpose: 'verify_email', usedAt: null })
    expect(tokens[0]!.tokenHash).not.toContain(token)
    const lifetime = tokens[0]!.expiresAt.getTime() - tokens[0]!.createdAt.getTime()
    expect(Math.abs(lifetime - 48 * 3600 * 1000)).toBeLessThan(5000)
  })

  it('answers 409 email_taken for an email the seller already has, in any case', async () => {
    expect((await register(a, newcomer('Taken@Example.com'))).statusCode).toBe(201)
    for (const email of ['Taken@Example.com', 'taken@example.com', 'TAKEN@EXAMPLE.COM']) {
      expectError(await register(a, newcomer(email)), 409, 'email_taken')
    }
    const rows = await ctx.app.db.select().from(customers).where(eq(customers.sellerId, a.seller.id))
    expect(rows.filter((r) => r.email.toLowerCase() === 'taken@example.com')).toHaveLength(1)
  })

  it('lets the same email hold separate accounts at two sellers', async () => {
    const atA = await register(a, newcomer('both@example.com', { password: 'password-at-a' }))
    const atB = await register(b, newcomer('both@example.com', { password: 'password-at-b' }))
    expect(atA.statusCode).toBe(201)
    expect(atB.statusCode).toBe(201)
    expect(atA.json().customer.id).not.toBe(atB.json().customer.id)
    // Each account knows its own password (and, unconfirmed, answers it with 403 email_not_verified).
    expectError(await postAuth(ctx.app, a, 'login', { email: 'both@example.com', password: 'password-at-a' }), 403, 'email_not_verified')
    expectError(await postAuth(ctx.app, b, 'login', { email: 'both@example.com', password: 'password-at-b' }), 403, 'email_not_verified')
    expectError(await postAuth(ctx.app, b, 'login', { email: 'both@example.com', password: 'password-at-a' }), 401, 'invalid_credentials')
  })

  it('lets exactly one of concurrent registrations of one email win', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => register(a, newcomer('race@example.com'))))
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409])
  })

  it('refuses passwords outside 8..128 characters and other invalid bodies with 400 validation_error', async () => {
    const cases: Record<string, unknown>[] = [
      newcomer('short@example.com', { password: 'x'.repeat(7) }),
      newcomer('long@example.com', { password: 'x'.repeat(129) }),
      newcomer('not-an-email'),
      newcomer('blank@example.com', { first_name: '  ' }),
      newcomer('extra@example.com', { role: 'admin' }),
      { email: 'missing@example.com', password: 'long enough password' },
    ]
    for (const body of cases) {
      const res = await register(a, body)
      expectError(res, 400, 'validation_error')
      expect(res.json().details.length, JSON.stringify(body)).toBeGreaterThan(0)
    }
    expect((await register(a, newcomer('edge8@example.com', { password: 'x'.repeat(8) }))).statusCode).toBe(201)
    expect((await register(a, newcomer('edge128@example.com', { password: 'x'.repeat(128) }))).statusCode).toBe(201)
    const created = await ctx.app.db.select({ email: customers.email }).from(customers)
    expect(created.map((c) => c.email)).not.toContain('short@example.com')
    expect(created.map((c) => c.email)).not.toContain('long@example.com')
  })

  it('needs the seller Basic credentials', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/stf/v1/auth/register', payload: newcomer('anon@example.com') })
    expectError(res, 401, 'unauthorized')
    expect(res.headers['www-authenticate']).toBe('Basic realm="stf"')
  })
})

describe('POST /stf/v1/auth/login', () => {
  it('answers a token pair for the right password, with the email in any case', async () => {
    const { customer, password } = await createTestCustomer(ctx.app, a, { email: 'Login.Pair@example.com', firstName: 'Lia' })
    const res = await postAuth(ctx.app, a, 'login', { email: 'login.pair@EXAMPLE.com', password })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    const body = res.json()
    expect(body).toEqual({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      refresh_token: expect.stringMatching(/^[\w-]{43}$/),
      token_type: 'Bearer',
      expires_in: 900,
      expires_at: expect.any(String),
      customer: {
        id: customer.id,
        email: 'Login.Pair@example.com',
        first_name: 'Lia',
        last_name: customer.lastName,
        email_verified: true,
        created_at: customer.createdAt.toISOString(),
      },
    })
    expect(Math.abs(Date.parse(body.expires_at) - (Date.now() + 900_000))).toBeLessThan(5000)
    const [header, claims] = body.access_token
      .split('.')
      .slice(0, 2)
      .map((part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')))
    expect(header).toMatchObject({ alg: 'HS256', typ: 'JWT' })
    expect(claims).toMatchObject({ sub: customer.id, sid: a.seller.id, aud: 'boxoffice:customer', iss: 'boxoffice', email: customer.email })
    // It names its session: the refresh-token family of this sign-in, not the factory's.
    expect(claims.sess).toMatch(/^[0-9a-f-]{36}$/)
    expect(claims.sess).not.toBe((await createTestCustomer(ctx.app, a)).sessionId)
    expect(claims.exp - claims.iat).toBe(900)
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/)
    const me = await getMe(ctx.app, { ...a.auth, 'x-customer-token': body.access_token })
    expect(me.statusCode).toBe(200)
    expect(me.json()).toEqual(body.customer)
  })

  it('gives an unknown email and a wrong password the same 401 invalid_credentials', async () => {
    const { customer } = await createTestCustomer(ctx.app, a)
    const wrong = await postAuth(ctx.app, a, 'login', { email: customer.email, password: 'not the password' })
    const unknown = await postAuth(ctx.app, a, 'login', { email: 'nobody-here@example.com', password: 'not the password' })
    expectError(wrong, 401, 'invalid_credentials')
    expect(errorBody(unknown)).toEqual(errorBody(wrong))
    expect(unknown.statusCode).toBe(wrong.statusCode)
    expect(Object.keys(unknown.headers).sort()).toEqual(Object.keys(wrong.headers).sort())
  })

  it('takes comparable time for an unknown email and a wrong password (the same argon2 work)', async () => {
    const { customer } = await createTestCustomer(ctx.app, a)
    const login = async (email: string) => {
      const res = await postAuth(ctx.app, a, 'login', { email, password: 'not the password' })
      expect(res.statusCode).toBe(401)
    }
    // The first unknown email of a process also computes the dummy hash: not a sample.
    await login('ghost-warm-up@example.com')
    let n = 0
    await expectComparableWork(
      () => login(customer.email),
      () => login(`ghost-${n++}@example.com`),
    )
  })

  it("refuses a customer of seller A at seller B's credentials", async () => {
    const { customer, password } = await createTestCustomer(ctx.app, a)
    expectError(await postAuth(ctx.app, b, 'login', { email: customer.email, password }), 401, 'invalid_credentials')
  })

  it('rehashes a password stored with weaker parameters on a successful login', async () => {
    const { customer, password } = await createTestCustomer(ctx.app, a)
    const weak = await argon2.hash(password, { type: argon2.argon2id, memoryCost: 8192, timeCost: 1, parallelism: 1 })
    await ctx.app.db.update(customers).set({ passwordHash: weak }).where(eq(customers.id, customer.id))
    expect((await postAuth(ctx.app, a, 'login', { email: customer.email, password })).statusCode).toBe(200)
    const [row] = await ctx.app.db.select().from(customers).where(eq(customers.id, customer.id))
    expect(row!.passwordHash).not.toBe(weak)
    expect(row!.passwordHash).toContain('m=19456,t=2,p=1')
    expect(await argon2.verify(row!.passwordHash!, password)).toBe(true)
    const audit = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, customer.id), eq(auditLog.action, 'stf.customer.signed_in')))
    expect(audit.map((e) => e.data)).toContainEqual({ method: 'password', password_rehashed: true })
  })

  it('keeps a current hash as it is', async () => {
    const { customer, password } = await createTestCustomer(ctx.app, a)
    expect((await postAuth(ctx.app, a, 'login', { email: customer.email, password })).statusCode).toBe(200)
    const [row] = await ctx.app.db.select().from(customers).where(eq(customers.id, customer.id))
    expect(row!.passwordHash).toBe(customer.passwordHash)
  })

  it('refuses invalid bodies with 400 validation_error before any password work', async () => {
    for (const body of [
      { email: 'a@example.com' },
      { email: 'nope', password: 'whatever1' },
      { email: 'a@example.com', password: '' },
      { email: 'a@example.com', password: 'x'.repeat(129) },
      { email: 'a@example.com', password: 'whatever1', remember: true },
    ]) {
      expectError(await postAuth(ctx.app, a, 'login', body), 400, 'validation_error')
    }
  })
})

describe('OpenAPI document', () => {
  it('documents the nine customer authentication operations and /me with their security and statuses', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const expected: [string, string, string][] = [
      ['post', '/stf/v1/auth/register', '201'],
      ['post', '/stf/v1/auth/login', '200'],
      ['delete', '/stf/v1/auth/logout', '204'],
      ['post', '/stf/v1/auth/refresh', '200'],
      ['post', '/stf/v1/auth/forgot-password', '200'],
      ['post', '/stf/v1/auth/reset-password', '200'],
      ['post', '/stf/v1/auth/magic-link', '200'],
      ['post', '/stf/v1/auth/magic-link/verify', '200'],
      ['post', '/stf/v1/auth/verify-email', '200'],
      ['get', '/stf/v1/me', '200'],
    ]
    for (const [method, path, success] of expected) {
      const op = doc.paths[path]?.[method]
      expect(op, `${method} ${path}`).toBeDefined()
      expect(op.tags).toEqual(['storefront'])
      expect(op.summary).toBeTruthy()
      expect(op.security).toContainEqual(expect.objectContaining({ sellerBasic: [] }))
      expect(Object.keys(op.responses)).toContain(success)
      expect(Object.keys(op.responses)).toContain('401')
    }
    expect(doc.paths['/stf/v1/me'].get.security).toEqual([{ sellerBasic: [], customerToken: [] }])
    expect(doc.paths['/stf/v1/auth/logout'].delete.description).toContain('X-Customer-Token')
    expect(doc.components.schemas.Customer.required).toEqual(['id', 'email', 'first_name', 'last_name', 'email_verified', 'created_at'])
  })
})
