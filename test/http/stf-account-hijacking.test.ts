import { and, eq, isNull } from 'drizzle-orm'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { customerOneTimeTokens } from '../../src/domain/customers/customer-tokens.table.js'
import { customers } from '../../src/domain/customers/customers.table.js'
import { buildTestApp } from '../build-app.js'
import { createTestCustomer } from '../factories/customers.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { errorBody, expectError, linkToken, postAuth } from '../support/customer-auth.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { SmtpSink } from '../support/smtp-sink.js'

// Pre-account hijacking: an attacker registers the victim's email with a password of their own
// choosing before the victim does. When the victim later proves the inbox, the attacker's way in
// must be gone: their password, their refresh tokens and their access tokens.

let sink: SmtpSink
let app: FastifyInstance
/** A seller that lets unconfirmed accounts sign in with a password (the attacker gets tokens). */
let lax: TestSeller
/** A seller with the default: an unconfirmed account cannot sign in with a password. */
let strict: TestSeller

const STOREFRONT = 'https://lax.example.com'

beforeAll(async () => {
  await resetDatabase(await testDatabase())
  sink = await SmtpSink.start()
  app = await buildTestApp({ env: { SMTP_URL: sink.url } })
  lax = await createTestSeller(app, { storefrontUrl: STOREFRONT, settings: { login_requires_verified_email: false, locale: 'en' } })
  strict = await createTestSeller(app, { storefrontUrl: 'https://strict.example.com' })
})
afterAll(async () => {
  await app?.close()
  await sink?.stop()
})

const post = (seller: TestSeller, path: string, body: unknown) => postAuth(app, seller, path, body)
const ordersWith = (seller: TestSeller, accessToken: string) =>
  app.inject({ method: 'GET', url: '/stf/v1/orders', headers: { ...seller.auth, 'x-customer-token': accessToken } })

type Page = 'verify-email' | 'reset-password' | 'magic-link'

/** Delivers the outbox through SMTP and answers the token of the newest link to `page` sent to `address`. */
async function mailedToken(address: string, page: Page, storefront = STOREFRONT): Promise<string> {
  await app.outbox.runOnce()
  const mails = sink.to(address).filter((mail) => mail.includes(`/${page}?token=`))
  expect(mails.length, `${page} emails to ${address}`).toBeGreaterThan(0)
  return linkToken(mails.at(-1)!, storefront, page)
}

/** The attacker registers `email` at the lax seller and signs in with the password they chose. */
async function squat(email: string) {
  const password = 'attacker chose this'
  expect((await post(lax, 'register', { email, password, first_name: 'Not', last_name: 'Victim' })).statusCode).toBe(201)
  const login = await post(lax, 'login', { email, password })
  expect(login.statusCode, login.body).toBe(200)
  const { access_token: accessToken, refresh_token: refreshToken } = login.json() as { access_token: string; refresh_token: string }
  expect((await ordersWith(lax, accessToken)).statusCode).toBe(200)
  return { password, accessToken, refreshToken }
}

function expectLockedOut(res: { login: LightMyRequestResponse; refresh: LightMyRequestResponse; orders: LightMyRequestResponse }) {
  expect([401, 403], res.login.body).toContain(res.login.statusCode)
  expect(res.login.json().access_token).toBeUndefined()
  expectError(res.refresh, 401, 'invalid_token')
  expectError(res.orders, 401, 'invalid_token')
}

async function attackerTries(email: string, attacker: Awaited<ReturnType<typeof squat>>) {
  return {
    login: await post(lax, 'login', { email, password: attacker.password }),
    refresh: await post(lax, 'refresh', { refresh_token: attacker.refreshToken }),
    orders: await ordersWith(lax, attacker.accessToken),
  }
}

describe('pre-account hijacking', () => {
  it('a magic-link sign-in by the owner ends the squatter: password, refresh token and access token', async () => {
    const email = 'victim.magic@example.com'
    const attacker = await squat(email)

    expect((await post(lax, 'magic-link', { email })).statusCode).toBe(200)
    const owner = await post(lax, 'magic-link/verify', { token: await mailedToken(email, 'magic-link') })
    expect(owner.statusCode, owner.body).toBe(200)
    expect(owner.json().customer.email_verified).toBe(true)

    const tried = await attackerTries(email, attacker)
    expectLockedOut(tried)
    expectError(tried.login, 401, 'invalid_credentials')
    // The owner's own session works, and the registration password is gone.
    expect((await ordersWith(lax, owner.json().access_token)).statusCode).toBe(200)
    const [row] = await app.db.select().from(customers).where(eq(customers.email, email))
    expect(row!.passwordHash).toBeNull()
  })

  it('a password reset by the owner ends the squatter', async () => {
    const email = 'victim.reset@example.com'
    const attacker = await squat(email)
    expect((await post(lax, 'forgot-password', { email })).statusCode).toBe(200)
    const reset = await post(lax, 'reset-password', { token: await mailedToken(email, 'reset-password'), password: 'the owner chose this' })
    expect(reset.statusCode, reset.body).toBe(200)

    const tried = await attackerTries(email, attacker)
    expectLockedOut(tried)
    expect((await post(lax, 'login', { email, password: 'the owner chose this' })).statusCode).toBe(200)
  })

  it("the owner confirming the address from the registration email ends the squatter's sessions", async () => {
    const email = 'victim.verify@example.com'
    const attacker = await squat(email)
    expect((await post(lax, 'verify-email', { token: await mailedToken(email, 'verify-email') })).statusCode).toBe(200)
    expectError(await post(lax, 'refresh', { refresh_token: attacker.refreshToken }), 401, 'invalid_token')
    expectError(await ordersWith(lax, attacker.accessToken), 401, 'invalid_token')
    // The verification email tells an owner who did not register not to open it (the password stays).
    expect(sink.to(email).find((mail) => mail.includes('/verify-email?token='))).toContain('If you did not create this account')
  })

  it('with the default setting the squatter gets no tokens at all: 403 email_not_verified, and 401 for a wrong password', async () => {
    const email = 'victim.strict@example.com'
    const password = 'attacker chose this'
    expect((await post(strict, 'register', { email, password, first_name: 'Not', last_name: 'Victim' })).statusCode).toBe(201)
    const login = await post(strict, 'login', { email, password })
    expectError(login, 403, 'email_not_verified')
    expect(Object.keys(login.json()).sort()).toEqual(['code', 'message', 'trace_id'])
    expectError(await post(strict, 'login', { email, password: 'not the password' }), 401, 'invalid_credentials')
    // Once confirmed, the password works.
    expect((await post(strict, 'verify-email', { token: await mailedToken(email, 'verify-email', 'https://strict.example.com') })).statusCode).toBe(200)
    expect((await post(strict, 'login', { email, password })).statusCode).toBe(200)
  })

  it('leaves a confirmed account alone: a later magic link keeps its password and its other sessions', async () => {
    const customer = await createTestCustomer(app, lax)
    const { email } = customer.customer
    expect((await post(lax, 'magic-link', { email })).statusCode).toBe(200)
    expect((await post(lax, 'magic-link/verify', { token: await mailedToken(email, 'magic-link') })).statusCode).toBe(200)
    expect((await post(lax, 'login', { email, password: customer.password })).statusCode).toBe(200)
    expect((await post(lax, 'refresh', { refresh_token: customer.refreshToken })).statusCode).toBe(200)
    expect((await ordersWith(lax, customer.accessToken)).statusCode).toBe(200)
  })
})

describe('POST /stf/v1/auth/verify-email/resend', () => {
  it('sends a new link to an unconfirmed address; the earlier link stops working and the new one works', async () => {
    const email = 'resend.me@example.com'
    expect((await post(lax, 'register', { email, password: 'long enough', first_name: 'R', last_name: 'S' })).statusCode).toBe(201)
    const first = await mailedToken(email, 'verify-email')
    const res = await post(lax, 'verify-email/resend', { email: email.toUpperCase() })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ message: expect.any(String) })
    const second = await mailedToken(email, 'verify-email')
    expect(second).not.toBe(first)
    expectError(await post(lax, 'verify-email', { token: first }), 401, 'invalid_token')
    expect((await post(lax, 'verify-email', { token: second })).statusCode).toBe(200)
  })

  it('answers an unknown and a confirmed address exactly alike, and emails neither', async () => {
    const confirmed = await createTestCustomer(app, lax)
    await app.db.update(customers).set({ emailVerifiedAt: new Date() }).where(eq(customers.id, confirmed.customer.id))
    await app.outbox.runOnce()
    const before = sink.to(confirmed.customer.email).length
    const unknown = await post(lax, 'verify-email/resend', { email: 'nobody.at.all@example.com' })
    const known = await post(lax, 'verify-email/resend', { email: confirmed.customer.email })
    expect(unknown.statusCode).toBe(200)
    expect(known.statusCode).toBe(200)
    expect(known.json()).toEqual(unknown.json())
    await app.outbox.runOnce()
    expect(sink.to(confirmed.customer.email)).toHaveLength(before)
    expect(sink.to('nobody.at.all@example.com')).toHaveLength(0)
    const live = await app.db
      .select()
      .from(customerOneTimeTokens)
      .where(and(eq(customerOneTimeTokens.customerId, confirmed.customer.id), isNull(customerOneTimeTokens.usedAt)))
    expect(live.filter((t) => t.purpose === 'verify_email' && t.createdAt > new Date(Date.now() - 60_000))).toHaveLength(1)
  })

  it('is limited per email like forgot-password (5 per window by default)', async () => {
    const results = []
    for (let i = 0; i < 6; i++) results.push((await post(strict, 'verify-email/resend', { email: 'bombed@example.com' })).statusCode)
    expect(results).toEqual([200, 200, 200, 200, 200, 429])
    expect(errorBody(await post(strict, 'forgot-password', { email: 'bombed@example.com' }))).toMatchObject({ code: 'rate_limited' })
  })
})

describe('customer access tokens name their session', () => {
  it('a reused refresh token ends the access tokens of its session at once, and only those', async () => {
    const customer = await createTestCustomer(app, lax)
    const other = await post(lax, 'login', { email: customer.customer.email, password: customer.password })
    const first = await post(lax, 'refresh', { refresh_token: customer.refreshToken })
    expect(first.statusCode).toBe(200)
    expectError(await post(lax, 'refresh', { refresh_token: customer.refreshToken }), 401, 'invalid_token')
    expectError(await ordersWith(lax, customer.accessToken), 401, 'invalid_token')
    expectError(await ordersWith(lax, first.json().access_token), 401, 'invalid_token')
    // Another sign-in of the same customer is another session.
    expect((await ordersWith(lax, other.json().access_token)).statusCode).toBe(200)
  })

  it('a password reset ends every access token of the customer at once', async () => {
    const customer = await createTestCustomer(app, lax)
    expect((await ordersWith(lax, customer.accessToken)).statusCode).toBe(200)
    await post(lax, 'forgot-password', { email: customer.customer.email })
    const token = await mailedToken(customer.customer.email, 'reset-password')
    expect((await post(lax, 'reset-password', { token, password: 'a brand new one' })).statusCode).toBe(200)
    expectError(await ordersWith(lax, customer.accessToken), 401, 'invalid_token')
  })
})
