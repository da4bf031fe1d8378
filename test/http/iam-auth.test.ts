import { expectComparableWork } from '../support/comparable-work.js'
import { eq, sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { staffSessions } from '../../src/domain/staff/sessions.table.js'
import { staffUsers } from '../../src/domain/staff/users.table.js'
import { useTestApp } from '../build-app.js'
import { asAdmin, createStaff } from '../support/staff.js'
import { decodeJwt } from '../support/jwt.js'

// Generous limits: this file is about tokens, iam-rate-limits.test.ts about limits.
const ctx = useTestApp({ env: { IAM_LOGIN_LIMIT_PER_IP: '1000', IAM_LOGIN_FAILURES_PER_ACCOUNT: '1000', IAM_REFRESH_LIMIT_PER_IP: '1000' } })

const login = (username: string, password: string) => ctx.app.inject({ method: 'POST', url: '/iam/v1/auth/login', payload: { username, password } })
const refresh = (refreshToken: string) => ctx.app.inject({ method: 'POST', url: '/iam/v1/auth/refresh', payload: { refresh_token: refreshToken } })
const me = (accessToken: string, id: string) =>
  ctx.app.inject({ method: 'GET', url: `/iam/v1/users/${id}`, headers: { authorization: `Bearer ${accessToken}` } })

describe('POST /iam/v1/auth/login', () => {
  it('answers a token pair with expires_at in unix seconds and the user with its roles', async () => {
    const staff = await asAdmin(ctx.app, { email: 'Ada.Admin@Example.test', password: 'correct horse battery' })
    const before = Math.floor(Date.now() / 1000)
    const res = await login('ada.admin@example.test', 'correct horse battery')
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    const body = res.json()
    expect(body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      type: 'Bearer',
      expires_at: expect.any(Number),
      user: { id: staff.user.id, name: staff.user.name, email: 'Ada.Admin@Example.test', roles: ['admin'] },
    })
    expect(Number.isInteger(body.expires_at)).toBe(true)
    expect(body.expires_at).toBeGreaterThanOrEqual(before + 900)
    expect(body.expires_at).toBeLessThanOrEqual(before + 901)
    expect(body.refresh_token.length).toBeGreaterThanOrEqual(40)
  })

  it('issues an HS256 JWT for the staff audience that carries no permissions', async () => {
    const staff = await createStaff(ctx.app, { password: 'a-staff-password' })
    const body = (await login(staff.user.email, 'a-staff-password')).json()
    const { header, payload } = decodeJwt(body.access_token)
    expect(header.alg).toBe('HS256')
    expect(payload).toEqual({
      sub: staff.user.id,
      sid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iss: 'boxoffice',
      aud: 'boxoffice:staff',
      iat: expect.any(Number),
      exp: body.expires_at,
    })
    expect(payload.exp - payload.iat).toBe(ctx.app.config.ttl.iamAccess)
    const second = (await login(staff.user.email, 'a-staff-password')).json()
    expect(decodeJwt(second.access_token).payload.jti).not.toBe(payload.jti)
  })

  it('accepts the email in any case', async () => {
    const staff = await createStaff(ctx.app, { email: 'mixed.Case@example.test', password: 'a-staff-password' })
    const res = await login('MIXED.case@EXAMPLE.TEST', 'a-staff-password')
    expect(res.statusCode).toBe(200)
    expect(res.json().user.id).toBe(staff.user.id)
  })

  it('answers an unknown email exactly like a wrong password', async () => {
    const staff = await createStaff(ctx.app, { password: 'the-right-password' })
    const wrong = await login(staff.user.email, 'not-the-password')
    const unknown = await login('nobody-here@example.test', 'not-the-password')
    expect(wrong.statusCode).toBe(401)
    expect(unknown.statusCode).toBe(401)
    const strip = (body: Record<string, unknown>) => ({ ...body, trace_id: undefined })
    expect(strip(wrong.json())).toEqual(strip(unknown.json()))
    expect(wrong.json()).toMatchObject({ code: 'invalid_credentials', message: expect.any(String) })
    expect(Object.keys(wrong.headers).sort()).toEqual(Object.keys(unknown.headers).sort())
  })

  it('spends comparable argon2 work on an unknown email and a wrong password', async () => {
    const staff = await createStaff(ctx.app, { password: 'the-right-password' })
    // The first unknown email of a process also computes the dummy hash: not a sample.
    await login('warm-up@example.test', 'not-the-password')
    let n = 0
    await expectComparableWork(
      () => login(staff.user.email, 'not-the-password'),
      () => login(`nobody-${n++}@example.test`, 'not-the-password'),
    )
  })

  it('rejects a missing field, an unknown field and a non-JSON body', async () => {
    const missing = await ctx.app.inject({ method: 'POST', url: '/iam/v1/auth/login', payload: { username: 'a@example.test' } })
    expect(missing.statusCode).toBe(400)
    expect(missing.json()).toMatchObject({ code: 'validation_error', details: [expect.objectContaining({ path: 'password' })] })
    const extra = await ctx.app.inject({
      method: 'POST',
      url: '/iam/v1/auth/login',
      payload: { username: 'a@example.test', password: 'x', remember: true },
    })
    expect(extra.statusCode).toBe(400)
    expect(extra.json().code).toBe('validation_error')
    const garbage = await ctx.app.inject({
      method: 'POST',
      url: '/iam/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username":',
    })
    expect(garbage.statusCode).toBe(400)
    expect(garbage.json().code).toBe('invalid_json')
  })

  it('replaces a password hash made with weaker parameters on a successful login', async () => {
    const argon2 = (await import('argon2')).default
    const staff = await createStaff(ctx.app, { password: 'an-old-password' })
    const weak = await argon2.hash('an-old-password', { type: argon2.argon2id, memoryCost: 4096, timeCost: 1, parallelism: 1 })
    await ctx.app.db.update(staffUsers).set({ passwordHash: weak }).where(eq(staffUsers.id, staff.user.id))
    expect((await login(staff.user.email, 'an-old-password')).statusCode).toBe(200)
    const [row] = await ctx.app.db.select().from(staffUsers).where(eq(staffUsers.id, staff.user.id))
    expect(row!.passwordHash).not.toBe(weak)
    expect(row!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    expect((await login(staff.user.email, 'an-old-password')).statusCode).toBe(200)
  })
})

describe('POST /iam/v1/auth/refresh', () => {
  it('rotates: answers a new pair with expires_at as ISO 8601, and the old refresh token stops working', async () => {
    const staff = await createStaff(ctx.app)
    const res = await refresh(staff.refreshToken)
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    const body = res.json()
    expect(body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      type: 'Bearer',
      expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      user: { id: staff.user.id, name: staff.user.name, email: staff.user.email, roles: [] },
    })
    expect(body.refresh_token).not.toBe(staff.refreshToken)
    expect(Date.parse(body.expires_at) / 1000).toBe(decodeJwt(body.access_token).payload.exp)
    expect((await me(body.access_token, staff.user.id)).statusCode).toBe(200)
    // The next rotation works with the new token.
    expect((await refresh(body.refresh_token)).statusCode).toBe(200)
  })

  it('revokes the whole family when a used refresh token is presented again', async () => {
    const staff = await createStaff(ctx.app)
    const first = (await refresh(staff.refreshToken)).json()
    const second = (await refresh(first.refresh_token)).json()
    expect((await me(second.access_token, staff.user.id)).statusCode).toBe(200)

    const reused = await refresh(staff.refreshToken)
    expect(reused.statusCode).toBe(401)
    expect(reused.json().code).toBe('invalid_token')

    // Every token descended from that login is now dead: the latest refresh token and access tokens too.
    expect((await refresh(second.refresh_token)).json().code).toBe('invalid_token')
    expect((await me(second.access_token, staff.user.id)).statusCode).toBe(401)
    expect((await me(staff.accessToken, staff.user.id)).statusCode).toBe(401)

    const [audit] = await ctx.app.db.select().from(auditLog).where(eq(auditLog.action, 'iam.session.revoked'))
    expect(audit).toMatchObject({ targetType: 'staff_user', targetId: staff.user.id, data: { reason: 'refresh_token_reuse' } })
  })

  it('leaves the other sessions of the same user alone on reuse', async () => {
    const staff = await createStaff(ctx.app, { password: 'a-staff-password' })
    const other = (await login(staff.user.email, 'a-staff-password')).json()
    await refresh(staff.refreshToken)
    expect((await refresh(staff.refreshToken)).statusCode).toBe(401)
    expect((await me(other.access_token, staff.user.id)).statusCode).toBe(200)
    expect((await refresh(other.refresh_token)).statusCode).toBe(200)
  })

  it('lets exactly one of ten concurrent uses of one refresh token succeed', async () => {
    const staff = await createStaff(ctx.app)
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(staff.refreshToken)))
    const statuses = results.map((r) => r.statusCode).sort()
    expect(statuses).toEqual([200, 401, 401, 401, 401, 401, 401, 401, 401, 401])
    for (const r of results.filter((r) => r.statusCode === 401)) expect(r.json().code).toBe('invalid_token')
    // The losers presented a used token: the family is revoked, the winner's new token included.
    const winner = results.find((r) => r.statusCode === 200)!.json()
    expect((await refresh(winner.refresh_token)).statusCode).toBe(401)
  })

  it('refuses an unknown, an expired and a malformed refresh token', async () => {
    expect((await refresh('not-a-token-we-issued')).json()).toMatchObject({ code: 'invalid_token' })
    const staff = await createStaff(ctx.app)
    await ctx.app.db.execute(sql`update staff_refresh_tokens set expires_at = now() - interval '1 second'
      where session_id in (select id from staff_sessions where user_id = ${staff.user.id})`)
    const expired = await refresh(staff.refreshToken)
    expect(expired.statusCode).toBe(401)
    expect(expired.json().code).toBe('invalid_token')
    const empty = await ctx.app.inject({ method: 'POST', url: '/iam/v1/auth/refresh', payload: { refresh_token: '' } })
    expect(empty.statusCode).toBe(400)
    const extra = await ctx.app.inject({ method: 'POST', url: '/iam/v1/auth/refresh', payload: { refresh_token: 'x', scope: 'all' } })
    expect(extra.statusCode).toBe(400)
  })

  it('forgets, at the next login, the sessions whose refresh tokens have all expired', async () => {
    const staff = await createStaff(ctx.app, { password: 'a-staff-password' })
    await ctx.app.db.execute(sql`update staff_refresh_tokens set expires_at = now() - interval '1 second'
      where session_id in (select id from staff_sessions where user_id = ${staff.user.id})`)
    expect((await login(staff.user.email, 'a-staff-password')).statusCode).toBe(200)
    const sessions = await ctx.app.db.select().from(staffSessions).where(eq(staffSessions.userId, staff.user.id))
    expect(sessions).toHaveLength(1)
    expect((await me(staff.accessToken, staff.user.id)).statusCode).toBe(401)
  })

  it('refuses the refresh token of a deleted user', async () => {
    const staff = await createStaff(ctx.app)
    await ctx.app.db.delete(staffUsers).where(eq(staffUsers.id, staff.user.id))
    expect((await refresh(staff.refreshToken)).json().code).toBe('invalid_token')
  })
})

describe('POST /iam/v1/auth/logout', () => {
  it('answers 204 and revokes every refresh and access token of the user', async () => {
    const staff = await createStaff(ctx.app, { password: 'a-staff-password' })
    const other = (await login(staff.user.email, 'a-staff-password')).json()
    const res = await ctx.app.inject({ method: 'POST', url: '/iam/v1/auth/logout', headers: staff.auth })
    expect(res.statusCode).toBe(204)
    expect(res.body).toBe('')
    expect((await refresh(staff.refreshToken)).json().code).toBe('invalid_token')
    expect((await refresh(other.refresh_token)).json().code).toBe('invalid_token')
    expect((await me(staff.accessToken, staff.user.id)).statusCode).toBe(401)
    expect((await me(other.access_token, staff.user.id)).statusCode).toBe(401)
    const sessions = await ctx.app.db.select().from(staffSessions).where(eq(staffSessions.userId, staff.user.id))
    expect(sessions.every((s) => s.revokedReason === 'logout')).toBe(true)
    // Signing in again works.
    expect((await login(staff.user.email, 'a-staff-password')).statusCode).toBe(200)
  })

  it('needs a valid Bearer token', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/iam/v1/auth/logout' })
    expect(res.statusCode).toBe(401)
    expect(res.json().code).toBe('unauthorized')
    const bad = await ctx.app.inject({ method: 'POST', url: '/iam/v1/auth/logout', headers: { authorization: 'Bearer a.b.c' } })
    expect(bad.statusCode).toBe(401)
  })
})
