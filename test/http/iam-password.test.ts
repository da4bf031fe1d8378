import { eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { staffPasswordResets } from '../../src/domain/staff/password-resets.table.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { buildTestApp } from '../build-app.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { SmtpSink } from '../support/smtp-sink.js'
import { createStaff } from '../support/staff.js'

let sink: SmtpSink
let app: FastifyInstance

beforeAll(async () => {
  await resetDatabase(await testDatabase())
  sink = await SmtpSink.start()
  app = await buildTestApp({
    env: {
      SMTP_URL: sink.url,
      MAIL_FROM: 'iam@boxoffice.test',
      IAM_RESET_URL: 'https://admin.example.test/reset-password',
      IAM_PASSWORD_LIMIT_PER_IP: '1000',
      IAM_RECOVER_LIMIT_PER_ACCOUNT: '1000',
      IAM_LOGIN_LIMIT_PER_IP: '1000',
    },
  })
})
afterAll(async () => {
  await app?.close()
  await sink?.close()
})
beforeEach(() => {
  sink.received.length = 0
})

const recover = (email: string) => app.inject({ method: 'POST', url: '/iam/v1/password/recover', payload: { email } })
const reset = (token: string, password: string) => app.inject({ method: 'POST', url: '/iam/v1/password/reset', payload: { token, password } })
const login = (username: string, password: string) => app.inject({ method: 'POST', url: '/iam/v1/auth/login', payload: { username, password } })

/** Delivers the outbox and answers the token of the one reset link mailed to `to`. */
async function mailedToken(to: string): Promise<string> {
  await app.outbox.runOnce()
  const mails = sink.received.filter((m) => m.to.includes(to))
  expect(mails).toHaveLength(1)
  const link = /https:\/\/admin\.example\.test\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(mails[0]!.text)
  expect(link, mails[0]!.text).not.toBeNull()
  return link![1]!
}

describe('POST /iam/v1/password/recover and /reset', () => {
  it('emails a reset link through SMTP; the new password works and the old one no longer does', async () => {
    const staff = await createStaff(app, { password: 'the-old-password' })
    const res = await recover(staff.user.email.toUpperCase())
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ message: expect.any(String) })

    await app.outbox.runOnce()
    expect(sink.received).toHaveLength(1)
    const mail = sink.received[0]!
    expect(mail.to).toEqual([staff.user.email])
    expect(mail.from).toBe('iam@boxoffice.test')
    expect(mail.subject).toContain('Reset your Boxoffice password')
    expect(mail.text).toContain(staff.user.name)
    sink.received.length = 0
    await recover(staff.user.email)
    const token = await mailedToken(staff.user.email)

    const done = await reset(token, 'the-new-password')
    expect(done.statusCode).toBe(200)
    expect(done.json()).toEqual({ message: expect.any(String) })
    expect((await login(staff.user.email, 'the-new-password')).statusCode).toBe(200)
    expect((await login(staff.user.email, 'the-old-password')).json().code).toBe('invalid_credentials')

    const [audit] = await app.db.select().from(auditLog).where(eq(auditLog.action, 'iam.user.password_reset'))
    expect(audit).toMatchObject({ actorType: 'staff', actorId: staff.user.id, targetType: 'staff_user', targetId: staff.user.id })
  })

  it('answers an unknown email exactly like a known one, and sends nothing', async () => {
    const staff = await createStaff(app)
    const known = await recover(staff.user.email)
    const unknown = await recover('nobody-at-all@example.test')
    expect(unknown.statusCode).toBe(known.statusCode)
    expect(unknown.json()).toEqual(known.json())
    await app.outbox.runOnce()
    expect(sink.received.map((m) => m.to)).toEqual([[staff.user.email]])
  })

  it('keeps only a hash of the token, and empties the sent email body', async () => {
    const staff = await createStaff(app)
    await recover(staff.user.email)
    const token = await mailedToken(staff.user.email)
    const rows = await app.db.select().from(staffPasswordResets).where(eq(staffPasswordResets.userId, staff.user.id))
    expect(rows).toHaveLength(1)
    expect(rows[0]!.tokenHash).not.toContain(token)
    const outbox = await app.db.select().from(outboxEmails).where(eq(outboxEmails.to, staff.user.email))
    expect(outbox.every((e) => e.status === 'delivered' && !e.text.includes(token))).toBe(true)
  })

  it('lets a reset token work once', async () => {
    const staff = await createStaff(app)
    await recover(staff.user.email)
    const token = await mailedToken(staff.user.email)
    expect((await reset(token, 'first-new-password')).statusCode).toBe(200)
    const again = await reset(token, 'second-new-password')
    expect(again.statusCode).toBe(401)
    expect(again.json().code).toBe('invalid_token')
    expect((await login(staff.user.email, 'first-new-password')).statusCode).toBe(200)
  })

  it('lets exactly one of ten concurrent resets with one token succeed', async () => {
    const staff = await createStaff(app)
    await recover(staff.user.email)
    const token = await mailedToken(staff.user.email)
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => reset(token, `concurrent-password-${i}`)))
    const ok = results.filter((r) => r.statusCode === 200)
    expect(ok).toHaveLength(1)
    expect(results.filter((r) => r.statusCode === 401 && r.json().code === 'invalid_token')).toHaveLength(9)
    const winner = results.indexOf(ok[0]!)
    expect((await login(staff.user.email, `concurrent-password-${winner}`)).statusCode).toBe(200)
  })

  it('refuses an expired token and an unknown one', async () => {
    const staff = await createStaff(app)
    await recover(staff.user.email)
    const token = await mailedToken(staff.user.email)
    await app.db.update(staffPasswordResets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(staffPasswordResets.userId, staff.user.id))
    expect((await reset(token, 'too-late-password')).json().code).toBe('invalid_token')
    expect((await reset('never-issued-token', 'some-new-password')).json().code).toBe('invalid_token')
  })

  it('sets the expiry from IAM_RESET_TOKEN_TTL_SECONDS', async () => {
    const staff = await createStaff(app)
    await recover(staff.user.email)
    const [row] = await app.db.select().from(staffPasswordResets).where(eq(staffPasswordResets.userId, staff.user.id))
    const ttl = (row!.expiresAt.getTime() - row!.createdAt.getTime()) / 1000
    expect(ttl).toBeCloseTo(app.config.ttl.iamReset, 0)
  })

  it('retires an earlier link when a new one is asked for', async () => {
    const staff = await createStaff(app)
    await recover(staff.user.email)
    const first = await mailedToken(staff.user.email)
    sink.received.length = 0
    await recover(staff.user.email)
    const second = await mailedToken(staff.user.email)
    expect((await reset(first, 'from-the-first-link')).json().code).toBe('invalid_token')
    expect((await reset(second, 'from-the-second-link')).statusCode).toBe(200)
  })

  it('revokes every session of the user', async () => {
    const staff = await createStaff(app)
    await recover(staff.user.email)
    expect((await reset(await mailedToken(staff.user.email), 'a-fresh-password')).statusCode).toBe(200)
    const refreshed = await app.inject({ method: 'POST', url: '/iam/v1/auth/refresh', payload: { refresh_token: staff.refreshToken } })
    expect(refreshed.json().code).toBe('invalid_token')
    const me = await app.inject({ method: 'GET', url: `/iam/v1/users/${staff.user.id}`, headers: staff.auth })
    expect(me.statusCode).toBe(401)
  })

  it('validates the bodies', async () => {
    const cases = [
      ['/iam/v1/password/recover', { email: 'not-an-email' }, 'email'],
      ['/iam/v1/password/recover', { email: 'a@example.test', name: 'x' }, ''],
      ['/iam/v1/password/recover', {}, 'email'],
      ['/iam/v1/password/reset', { token: 'x', password: 'short' }, 'password'],
      ['/iam/v1/password/reset', { token: 'x', password: 'y'.repeat(129) }, 'password'],
      ['/iam/v1/password/reset', { password: 'long-enough-password' }, 'token'],
    ] as const
    for (const [url, payload, path] of cases) {
      const res = await app.inject({ method: 'POST', url, payload })
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().code).toBe('validation_error')
      if (path) expect(res.json().details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]))
    }
  })
})
