import { and, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { customerOneTimeTokens } from '../../src/domain/customers/customer-tokens.table.js'
import { customers } from '../../src/domain/customers/customers.table.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { buildTestApp } from '../build-app.js'
import { createTestCustomer } from '../factories/customers.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { errorBody, expectError, getMe, linkToken, postAuth } from '../support/customer-auth.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { SmtpSink } from '../support/smtp-sink.js'

let sink: SmtpSink
let app: FastifyInstance
let a: TestSeller
let b: TestSeller

beforeAll(async () => {
  await resetDatabase(await testDatabase())
  sink = await SmtpSink.start()
  app = await buildTestApp({ env: { SMTP_URL: sink.url } })
  // Seller a writes to its buyers in English; b keeps the default, Portuguese (pt-BR).
  a = await createTestSeller(app, { name: 'Loja A', storefrontUrl: 'https://loja-a.example.com/', settings: { locale: 'en' } })
  b = await createTestSeller(app, { name: 'Loja B', storefrontUrl: 'https://shop-b.example.net/br' })
})
afterAll(async () => {
  await app?.close()
  await sink?.stop()
})

const post = (path: string, body: unknown, seller: TestSeller = a) => postAuth(app, seller, path, body)

type Page = 'verify-email' | 'reset-password' | 'magic-link'

/** Delivers the outbox through SMTP and answers the one new email to `address` with a link to `page`. */
async function deliveredTo(address: string, page: Page): Promise<string> {
  const withLink = () => sink.to(address).filter((mail) => mail.includes(`/${page}?token=`))
  const before = withLink().length
  await app.outbox.runOnce()
  const mails = withLink()
  expect(mails.length, `${page} emails to ${address}`).toBe(before + 1)
  return mails.at(-1)!
}

const register = async (email: string, seller: TestSeller = a) => {
  const res = await post('register', { email, password: 'first password', first_name: 'Rita', last_name: 'Lee' }, seller)
  expect(res.statusCode, res.body).toBe(201)
  return res.json().customer as { id: string; email_verified: boolean }
}

describe('email verification', () => {
  it('emails a link on the storefront URL whose token confirms the address, once', async () => {
    const customer = await register('verify.me@example.com')
    const mail = await deliveredTo('verify.me@example.com', 'verify-email')
    expect(mail).toContain('Subject: Confirm your email address for Loja A')
    expect(mail).toContain('Hello Rita,')
    expect(mail).toContain('expires in 48 hours')
    const token = linkToken(mail, 'https://loja-a.example.com', 'verify-email')

    const res = await post('verify-email', { token })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ message: expect.any(String) })
    const login = await post('login', { email: 'verify.me@example.com', password: 'first password' })
    expect(login.json().customer).toMatchObject({ id: customer.id, email_verified: true })

    expectError(await post('verify-email', { token }), 401, 'invalid_token')
    const audit = await app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, customer.id), eq(auditLog.action, 'stf.customer.email_verified')))
    expect(audit).toHaveLength(1)
  })

  it('refuses a verification token at another seller and an unknown or expired one', async () => {
    const customer = await register('elsewhere@example.com')
    const token = linkToken(await deliveredTo('elsewhere@example.com', 'verify-email'), 'https://loja-a.example.com', 'verify-email')
    expectError(await post('verify-email', { token }, b), 401, 'invalid_token')
    expectError(await post('verify-email', { token: 'x'.repeat(43) }), 401, 'invalid_token')
    await app.db
      .update(customerOneTimeTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(customerOneTimeTokens.customerId, customer.id))
    expectError(await post('verify-email', { token }), 401, 'invalid_token')
    const [row] = await app.db.select().from(customers).where(eq(customers.id, customer.id))
    expect(row!.emailVerifiedAt).toBeNull()
  })
})

describe("the seller's language", () => {
  it('writes every customer email in Portuguese for a seller of the default locale (pt-BR)', async () => {
    await register('lingua@example.com', b)
    await deliveredTo('lingua@example.com', 'verify-email')
    expect((await post('forgot-password', { email: 'lingua@example.com' }, b)).statusCode).toBe(200)
    await deliveredTo('lingua@example.com', 'reset-password')
    expect((await post('magic-link', { email: 'lingua@example.com' }, b)).statusCode).toBe(200)
    await deliveredTo('lingua@example.com', 'magic-link')
    const mails = sink.received.filter((m) => m.to.includes('lingua@example.com'))
    expect(mails.map((m) => m.subject)).toEqual(['Loja B: confirme seu e-mail', 'Loja B: redefina sua senha', 'Loja B: seu link de acesso'])
    for (const mail of mails) {
      expect(mail.text).toMatch(/^Olá, Rita,\n/)
      expect(mail.text).toContain('O link funciona uma vez e expira em')
      expect(mail.text).not.toContain('Hello')
    }
    expect(mails.map((m) => /expira em ([^.]+)\./.exec(m.text)?.[1])).toEqual(['48 horas', '30 minutos', '10 minutos'])
  })
})

describe('password reset', () => {
  it('emails a reset link whose token sets a new password, ends every session and works once', async () => {
    const rui = await createTestCustomer(app, a, { email: 'rui@example.com', password: 'old password' })
    const res = await post('forgot-password', { email: 'RUI@example.com' })
    expect(res.statusCode).toBe(200)
    const mail = await deliveredTo('rui@example.com', 'reset-password')
    expect(mail).toContain('Subject: Reset your Loja A password')
    expect(mail).toContain('expires in 30 minutes')
    const token = linkToken(mail, 'https://loja-a.example.com', 'reset-password')

    const reset = await post('reset-password', { token, password: 'brand new password' })
    expect(reset.statusCode, reset.body).toBe(200)
    expect(reset.json()).toEqual({ message: expect.any(String) })

    expect((await post('login', { email: 'rui@example.com', password: 'brand new password' })).statusCode).toBe(200)
    expectError(await post('login', { email: 'rui@example.com', password: 'old password' }), 401, 'invalid_credentials')
    expectError(await post('refresh', { refresh_token: rui.refreshToken }), 401, 'invalid_token')
    expectError(await post('reset-password', { token, password: 'third password!' }), 401, 'invalid_token')
    const audit = await app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, rui.customer.id), eq(auditLog.action, 'stf.customer.password_reset')))
    expect(audit).toHaveLength(1)
  })

  it('lets exactly one of 10 concurrent resets with one token succeed', async () => {
    const eva = await createTestCustomer(app, a, { email: 'eva@example.com' })
    await post('forgot-password', { email: 'eva@example.com' })
    const token = linkToken(await deliveredTo('eva@example.com', 'reset-password'), 'https://loja-a.example.com', 'reset-password')
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => post('reset-password', { token, password: `new password ${i}` })))
    const ok = results.flatMap((r, i) => (r.statusCode === 200 ? [i] : []))
    expect(ok).toHaveLength(1)
    for (const res of results.filter((r) => r.statusCode !== 200)) expectError(res, 401, 'invalid_token')
    expect((await post('login', { email: eva.customer.email, password: `new password ${ok[0]}` })).statusCode).toBe(200)
  })

  it('leaves no session signed in with the old password, even by logins racing the reset', async () => {
    const old = await createTestCustomer(app, a, { email: 'racer@example.com', password: 'the old password' })
    await post('forgot-password', { email: 'racer@example.com' })
    const token = linkToken(await deliveredTo('racer@example.com', 'reset-password'), 'https://loja-a.example.com', 'reset-password')
    const [reset, ...logins] = await Promise.all([
      post('reset-password', { token, password: 'the new password' }),
      ...Array.from({ length: 6 }, () => post('login', { email: 'racer@example.com', password: 'the old password' })),
    ])
    expect(reset!.statusCode).toBe(200)
    const refreshTokens = [old.refreshToken, ...logins.filter((r) => r.statusCode === 200).map((r) => r.json().refresh_token as string)]
    for (const refreshToken of refreshTokens) expectError(await post('refresh', { refresh_token: refreshToken }), 401, 'invalid_token')
    for (const res of logins.filter((r) => r.statusCode !== 200)) expectError(res, 401, 'invalid_credentials')
  })

  it('lets a magic-link sign-in racing a reset neither fail the reset nor outlive it', async () => {
    for (let round = 0; round < 3; round++) {
      const email = `magic-racer-${round}@example.com`
      await createTestCustomer(app, a, { email })
      await post('forgot-password', { email })
      const resetToken = linkToken(await deliveredTo(email, 'reset-password'), 'https://loja-a.example.com', 'reset-password')
      await post('magic-link', { email })
      const magicToken = linkToken(await deliveredTo(email, 'magic-link'), 'https://loja-a.example.com', 'magic-link')
      const [reset, magic] = await Promise.all([
        post('reset-password', { token: resetToken, password: 'the new password' }),
        post('magic-link/verify', { token: magicToken }),
      ])
      expect(reset!.statusCode, reset!.body).toBe(200)
      if (magic!.statusCode === 200) {
        expectError(await post('refresh', { refresh_token: magic!.json().refresh_token }), 401, 'invalid_token')
      } else {
        expectError(magic!, 401, 'invalid_token')
      }
    }
  })

  it('voids the other outstanding reset and sign-in links once a password is reset', async () => {
    await createTestCustomer(app, a, { email: 'ivo@example.com' })
    await post('forgot-password', { email: 'ivo@example.com' })
    const first = linkToken(await deliveredTo('ivo@example.com', 'reset-password'), 'https://loja-a.example.com', 'reset-password')
    await post('magic-link', { email: 'ivo@example.com' })
    const magic = linkToken(await deliveredTo('ivo@example.com', 'magic-link'), 'https://loja-a.example.com', 'magic-link')
    await post('forgot-password', { email: 'ivo@example.com' })
    const second = linkToken(await deliveredTo('ivo@example.com', 'reset-password'), 'https://loja-a.example.com', 'reset-password')
    expect((await post('reset-password', { token: second, password: 'newest password' })).statusCode).toBe(200)
    expectError(await post('reset-password', { token: first, password: 'older password' }), 401, 'invalid_token')
    expectError(await post('magic-link/verify', { token: magic }), 401, 'invalid_token')
  })

  it('refuses a new password outside 8..128 characters with 400, leaving the token usable', async () => {
    await createTestCustomer(app, a, { email: 'short@example.com' })
    await post('forgot-password', { email: 'short@example.com' })
    const token = linkToken(await deliveredTo('short@example.com', 'reset-password'), 'https://loja-a.example.com', 'reset-password')
    expectError(await post('reset-password', { token, password: 'x'.repeat(7) }), 400, 'validation_error')
    expectError(await post('reset-password', { token, password: 'x'.repeat(129) }), 400, 'validation_error')
    expect((await post('reset-password', { token, password: 'x'.repeat(8) })).statusCode).toBe(200)
  })

  it('refuses a reset token at another seller and an expired one', async () => {
    const leo = await createTestCustomer(app, a, { email: 'leo@example.com' })
    await post('forgot-password', { email: 'leo@example.com' })
    const token = linkToken(await deliveredTo('leo@example.com', 'reset-password'), 'https://loja-a.example.com', 'reset-password')
    expectError(await post('reset-password', { token, password: 'hijacked password' }, b), 401, 'invalid_token')
    await app.db
      .update(customerOneTimeTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(customerOneTimeTokens.customerId, leo.customer.id))
    expectError(await post('reset-password', { token, password: 'late new password' }), 401, 'invalid_token')
    expect((await post('login', { email: 'leo@example.com', password: leo.password })).statusCode).toBe(200)
  })
})

describe('magic link', () => {
  it('emails a sign-in link whose token answers a token pair and confirms the address, once', async () => {
    const customer = await register('mia@example.com')
    await deliveredTo('mia@example.com', 'verify-email')
    expect((await post('magic-link', { email: 'mia@example.com' })).statusCode).toBe(200)
    const mail = await deliveredTo('mia@example.com', 'magic-link')
    expect(mail).toContain('Subject: Your Loja A sign-in link')
    expect(mail).toContain('expires in 10 minutes')
    const token = linkToken(mail, 'https://loja-a.example.com', 'magic-link')

    const res = await post('magic-link/verify', { token })
    expect(res.statusCode, res.body).toBe(200)
    const pair = res.json()
    expect(pair).toMatchObject({ token_type: 'Bearer', expires_in: 900, customer: { id: customer.id, email_verified: true } })
    expect((await getMe(app, { ...a.auth, 'x-customer-token': pair.access_token })).json()).toMatchObject({ id: customer.id })
    expect((await post('refresh', { refresh_token: pair.refresh_token })).statusCode).toBe(200)
    expectError(await post('magic-link/verify', { token }), 401, 'invalid_token')
  })

  it('lets exactly one of 10 concurrent verifications of one link succeed', async () => {
    await createTestCustomer(app, a, { email: 'noa@example.com' })
    await post('magic-link', { email: 'noa@example.com' })
    const token = linkToken(await deliveredTo('noa@example.com', 'magic-link'), 'https://loja-a.example.com', 'magic-link')
    const results = await Promise.all(Array.from({ length: 10 }, () => post('magic-link/verify', { token })))
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1)
    for (const res of results.filter((r) => r.statusCode !== 200)) expectError(res, 401, 'invalid_token')
  })

  it("uses the storefront URL of the customer's seller and refuses the token at another seller", async () => {
    await createTestCustomer(app, b, { email: 'bea@example.com' })
    await post('magic-link', { email: 'bea@example.com' }, b)
    const mail = await deliveredTo('bea@example.com', 'magic-link')
    const token = linkToken(mail, 'https://shop-b.example.net/br', 'magic-link')
    expect(mail).not.toContain('loja-a.example.com')
    expectError(await post('magic-link/verify', { token }, a), 401, 'invalid_token')
    expect((await post('magic-link/verify', { token }, b)).statusCode).toBe(200)
  })

  it('refuses an expired link', async () => {
    const ze = await createTestCustomer(app, a, { email: 'ze@example.com' })
    await post('magic-link', { email: 'ze@example.com' })
    const token = linkToken(await deliveredTo('ze@example.com', 'magic-link'), 'https://loja-a.example.com', 'magic-link')
    await app.db
      .update(customerOneTimeTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(customerOneTimeTokens.customerId, ze.customer.id))
    expectError(await post('magic-link/verify', { token }), 401, 'invalid_token')
  })
})

describe('enumeration safety', () => {
  for (const path of ['forgot-password', 'magic-link'] as const) {
    it(`${path} answers identically whether or not the account exists, and emails only an account`, async () => {
      await createTestCustomer(app, a, { email: `known-${path}@example.com` })
      // Another seller's customer is no account here either.
      await createTestCustomer(app, b, { email: `other-${path}@example.com` })
      const known = await post(path, { email: `known-${path}@example.com` })
      const unknown = await post(path, { email: `unknown-${path}@example.com` })
      const foreign = await post(path, { email: `other-${path}@example.com` })
      expect(known.statusCode).toBe(200)
      for (const res of [unknown, foreign]) {
        expect(res.statusCode).toBe(known.statusCode)
        expect(res.body).toBe(known.body)
        expect(Object.keys(res.headers).sort()).toEqual(Object.keys(known.headers).sort())
      }
      await app.outbox.runOnce()
      expect(sink.to(`known-${path}@example.com`).some((m) => m.includes(`/${path === 'magic-link' ? 'magic-link' : 'reset-password'}?token=`))).toBe(true)
      expect(sink.to(`unknown-${path}@example.com`)).toHaveLength(0)
      expect(sink.to(`other-${path}@example.com`).filter((m) => !m.includes('/verify-email?token='))).toHaveLength(0)
      expect(
        await app.db
          .select()
          .from(outboxEmails)
          .where(eq(outboxEmails.to, `unknown-${path}@example.com`)),
      ).toHaveLength(0)
    })
  }

  it('refuses invalid emails with 400 validation_error on both', async () => {
    for (const path of ['forgot-password', 'magic-link']) {
      const res = await post(path, { email: 'not an email' })
      expectError(res, 400, 'validation_error')
      expect(errorBody(res)).toMatchObject({ details: [expect.objectContaining({ path: 'email' })] })
    }
  })
})
