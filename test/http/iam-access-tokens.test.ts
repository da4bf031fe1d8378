import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { staffUsers } from '../../src/domain/staff/users.table.js'
import { buildTestApp, useTestApp } from '../build-app.js'
import { craftJwt, decodeJwt } from '../support/jwt.js'
import { captureLogs } from '../support/log-capture.js'
import { createStaff } from '../support/staff.js'

const ctx = useTestApp()

const getSelf = (id: string, authorization: string | undefined) =>
  ctx.app.inject({ method: 'GET', url: `/iam/v1/users/${id}`, headers: authorization === undefined ? {} : { authorization } })

/** Claims a genuine token would carry for this staff member, to tamper with one at a time. */
async function genuineClaims() {
  const staff = await createStaff(ctx.app)
  const { payload } = decodeJwt(staff.accessToken)
  return { staff, payload }
}

const expectRefused = async (id: string, authorization: string | undefined) => {
  const res = await getSelf(id, authorization)
  expect(res.statusCode).toBe(401)
  expect(res.json()).toMatchObject({ code: 'unauthorized', trace_id: res.headers['x-trace-id'] })
  expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="staff"/)
  return res
}

describe('staff access tokens', () => {
  it('accepts a genuine token', async () => {
    const { staff } = await genuineClaims()
    expect((await getSelf(staff.user.id, `Bearer ${staff.accessToken}`)).statusCode).toBe(200)
    expect((await getSelf(staff.user.id, `bearer ${staff.accessToken}`)).statusCode).toBe(200)
  })

  it('refuses a missing or malformed Authorization header', async () => {
    const { staff } = await genuineClaims()
    await expectRefused(staff.user.id, undefined)
    await expectRefused(staff.user.id, staff.accessToken)
    await expectRefused(staff.user.id, `Basic ${Buffer.from('a:b').toString('base64')}`)
    await expectRefused(staff.user.id, `Bearer ${staff.accessToken} extra`)
    await expectRefused(staff.user.id, 'Bearer ')
    await expectRefused(staff.user.id, `Bearer ${'a'.repeat(5000)}.b.c`)
  })

  it('refuses a token whose signature was forged or whose payload was altered', async () => {
    const { staff, payload } = await genuineClaims()
    await expectRefused(staff.user.id, `Bearer ${craftJwt({ alg: 'HS256', typ: 'JWT' }, payload, 'a-key-an-attacker-guessed-at-32-chars!')}`)
    const [h, , s] = staff.accessToken.split('.')
    const other = await createStaff(ctx.app, { roles: ['admin'] })
    const swapped = Buffer.from(JSON.stringify({ ...payload, sub: other.user.id })).toString('base64url')
    await expectRefused(other.user.id, `Bearer ${h}.${swapped}.${s}`)
  })

  it('refuses an unsigned token (alg none)', async () => {
    const { staff, payload } = await genuineClaims()
    await expectRefused(staff.user.id, `Bearer ${craftJwt({ alg: 'none', typ: 'JWT' }, payload, null)}`)
    await expectRefused(staff.user.id, `Bearer ${craftJwt({ alg: 'none', typ: 'JWT' }, payload, ctx.app.secrets.staffJwt)}`)
  })

  it('refuses another algorithm even under the right key', async () => {
    const { staff, payload } = await genuineClaims()
    // Right key and a valid HS256 MAC, but the header claims HS512: the algorithm is pinned.
    await expectRefused(staff.user.id, `Bearer ${craftJwt({ alg: 'HS512', typ: 'JWT' }, payload, ctx.app.secrets.staffJwt)}`)
  })

  it('refuses an expired token', async () => {
    const { staff, payload } = await genuineClaims()
    const now = Math.floor(Date.now() / 1000)
    const expired = craftJwt({ alg: 'HS256', typ: 'JWT' }, { ...payload, iat: now - 1000, exp: now - 10 }, ctx.app.secrets.staffJwt)
    await expectRefused(staff.user.id, `Bearer ${expired}`)
    const { exp: _exp, ...withoutExpiry } = payload
    await expectRefused(staff.user.id, `Bearer ${craftJwt({ alg: 'HS256', typ: 'JWT' }, withoutExpiry, ctx.app.secrets.staffJwt)}`)
  })

  it('refuses a token for another audience, such as a customer token', async () => {
    const { staff, payload } = await genuineClaims()
    const header = { alg: 'HS256', typ: 'JWT' }
    await expectRefused(staff.user.id, `Bearer ${craftJwt(header, { ...payload, aud: 'boxoffice:customer' }, ctx.app.secrets.staffJwt)}`)
    const { aud: _aud, ...withoutAudience } = payload
    await expectRefused(staff.user.id, `Bearer ${craftJwt(header, withoutAudience, ctx.app.secrets.staffJwt)}`)
    // Signed with the customer key: refused even with the staff audience.
    await expectRefused(staff.user.id, `Bearer ${craftJwt(header, payload, ctx.app.secrets.customerJwt)}`)
  })

  it('refuses a token from another issuer', async () => {
    const { staff, payload } = await genuineClaims()
    const header = { alg: 'HS256', typ: 'JWT' }
    await expectRefused(staff.user.id, `Bearer ${craftJwt(header, { ...payload, iss: 'someone-else' }, ctx.app.secrets.staffJwt)}`)
    const { iss: _iss, ...withoutIssuer } = payload
    await expectRefused(staff.user.id, `Bearer ${craftJwt(header, withoutIssuer, ctx.app.secrets.staffJwt)}`)
  })

  it('refuses a token without a session, or naming a session that does not exist', async () => {
    const { staff, payload } = await genuineClaims()
    const header = { alg: 'HS256', typ: 'JWT' }
    const { sid: _sid, ...withoutSession } = payload
    await expectRefused(staff.user.id, `Bearer ${craftJwt(header, withoutSession, ctx.app.secrets.staffJwt)}`)
    await expectRefused(staff.user.id, `Bearer ${craftJwt(header, { ...payload, sid: randomUUID() }, ctx.app.secrets.staffJwt)}`)
    await expectRefused(staff.user.id, `Bearer ${craftJwt(header, { ...payload, sub: 'not-a-uuid' }, ctx.app.secrets.staffJwt)}`)
  })

  it("refuses a deleted user's token on the very next request", async () => {
    const { staff } = await genuineClaims()
    expect((await getSelf(staff.user.id, `Bearer ${staff.accessToken}`)).statusCode).toBe(200)
    await ctx.app.db.delete(staffUsers).where(eq(staffUsers.id, staff.user.id))
    await expectRefused(staff.user.id, `Bearer ${staff.accessToken}`)
  })

  it('never writes a token to the log, accepted or refused', async () => {
    const logs = captureLogs('trace')
    const app = await buildTestApp({ logger: logs.logger })
    try {
      const staff = await createStaff(app)
      const forged = craftJwt({ alg: 'none' }, decodeJwt(staff.accessToken).payload, null)
      for (const token of [staff.accessToken, forged]) {
        await app.inject({ method: 'GET', url: `/iam/v1/users/${staff.user.id}`, headers: { authorization: `Bearer ${token}` } })
      }
      await app.inject({ method: 'POST', url: '/iam/v1/auth/refresh', payload: { refresh_token: staff.refreshToken } })
      expect(logs.lines.length).toBeGreaterThan(0)
      const written = JSON.stringify(logs.lines)
      for (const secret of [staff.accessToken, forged, staff.refreshToken]) expect(written).not.toContain(secret.slice(-24))
    } finally {
      await app.close()
    }
  })
})
