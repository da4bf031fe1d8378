import { and, eq, isNull } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { customerRefreshTokens } from '../../src/domain/customers/customer-tokens.table.js'
import { hashOpaqueToken } from '../../src/platform/auth/opaque-token.js'
import { useTestApp } from '../build-app.js'
import { createTestCustomer } from '../factories/customers.js'
import { type TestSeller, useTwoSellers } from '../factories/sellers.js'
import { expectError, getMe, postAuth } from '../support/customer-auth.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)

const refresh = (token: string, seller: TestSeller = a) => postAuth(ctx.app, seller, 'refresh', { refresh_token: token })
const logout = (userId: string, headers: Record<string, string> = a.auth) =>
  ctx.app.inject({ method: 'DELETE', url: `/stf/v1/auth/logout?user_id=${userId}`, headers })
const rowOf = async (token: string) =>
  (
    await ctx.app.db
      .select()
      .from(customerRefreshTokens)
      .where(eq(customerRefreshTokens.tokenHash, hashOpaqueToken(ctx.app.secrets.tokenHmac, token)))
  )[0]
const liveTokens = (customerId: string) =>
  ctx.app.db
    .select()
    .from(customerRefreshTokens)
    .where(and(eq(customerRefreshTokens.customerId, customerId), isNull(customerRefreshTokens.usedAt), isNull(customerRefreshTokens.revokedAt)))

describe('POST /stf/v1/auth/refresh', () => {
  it('exchanges a refresh token for a new pair, in the same family', async () => {
    const ana = await createTestCustomer(ctx.app, a)
    const res = await refresh(ana.refreshToken)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    const body = res.json()
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900, customer: { id: ana.customer.id, email: ana.customer.email } })
    expect(body.refresh_token).not.toBe(ana.refreshToken)
    expect(body.access_token).not.toBe(ana.accessToken)
    expect((await getMe(ctx.app, { ...a.auth, 'x-customer-token': body.access_token })).statusCode).toBe(200)
    const [before, after] = [await rowOf(ana.refreshToken), await rowOf(body.refresh_token)]
    expect(before!.usedAt).toBeInstanceOf(Date)
    expect(after!.familyId).toBe(before!.familyId)
    expect(after!.usedAt).toBeNull()
    const lifetime = after!.expiresAt.getTime() - after!.createdAt.getTime()
    expect(Math.abs(lifetime - 30 * 24 * 3600 * 1000)).toBeLessThan(5000)
  })

  it('stores refresh tokens only as a keyed hash', async () => {
    const ana = await createTestCustomer(ctx.app, a)
    const rows = await ctx.app.db.select().from(customerRefreshTokens).where(eq(customerRefreshTokens.customerId, ana.customer.id))
    expect(rows).toHaveLength(1)
    expect(JSON.stringify(rows)).not.toContain(ana.refreshToken)
  })

  it('works once: a used token is refused, and its reuse revokes the whole family', async () => {
    const ana = await createTestCustomer(ctx.app, a)
    const first = (await refresh(ana.refreshToken)).json()
    const second = (await refresh(first.refresh_token)).json()
    // Another sign-in of the same customer is another family and survives.
    const other = await postAuth(ctx.app, a, 'login', { email: ana.customer.email, password: ana.password })

    expectError(await refresh(ana.refreshToken), 401, 'invalid_token')
    expectError(await refresh(second.refresh_token), 401, 'invalid_token')
    expect((await rowOf(second.refresh_token))!.revokedAt).toBeInstanceOf(Date)
    expect((await refresh(other.json().refresh_token)).statusCode).toBe(200)

    const audit = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, ana.customer.id), eq(auditLog.action, 'stf.customer.refresh_token_reused')))
    expect(audit).toHaveLength(1)
    expect(audit[0]!.data).toMatchObject({ family_id: (await rowOf(ana.refreshToken))!.familyId })
  })

  it('lets exactly one of 10 concurrent refreshes with one token succeed, and treats the rest as reuse', async () => {
    const ana = await createTestCustomer(ctx.app, a)
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(ana.refreshToken)))
    const ok = results.filter((r) => r.statusCode === 200)
    expect(ok).toHaveLength(1)
    for (const res of results.filter((r) => r.statusCode !== 200)) expectError(res, 401, 'invalid_token')
    // The token was presented again after its first use: its family is revoked, the winner's successor with it.
    expectError(await refresh(ok[0]!.json().refresh_token), 401, 'invalid_token')
    expect(await liveTokens(ana.customer.id)).toHaveLength(0)
  })

  it("refuses seller A's refresh token with seller B's credentials, without touching it", async () => {
    const ana = await createTestCustomer(ctx.app, a)
    expectError(await refresh(ana.refreshToken, b), 401, 'invalid_token')
    expect((await refresh(ana.refreshToken)).statusCode).toBe(200)
  })

  it('refuses unknown and expired refresh tokens', async () => {
    const ana = await createTestCustomer(ctx.app, a)
    expectError(await refresh('x'.repeat(43)), 401, 'invalid_token')
    await ctx.app.db
      .update(customerRefreshTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(customerRefreshTokens.customerId, ana.customer.id))
    expectError(await refresh(ana.refreshToken), 401, 'invalid_token')
  })

  it('refuses invalid bodies with 400 validation_error', async () => {
    for (const body of [{}, { refresh_token: '' }, { refresh_token: 42 }, { refresh_token: 'x', extra: 1 }]) {
      expectError(await postAuth(ctx.app, a, 'refresh', body), 400, 'validation_error')
    }
  })
})

describe('DELETE /stf/v1/auth/logout', () => {
  it('ends every session of the customer: its refresh tokens and its access tokens stop working at once', async () => {
    const ana = await createTestCustomer(ctx.app, a)
    const second = (await postAuth(ctx.app, a, 'login', { email: ana.customer.email, password: ana.password })).json()
    // Both access tokens work, and are now known live to the process's memory.
    expect((await getMe(ctx.app, ana.headers)).statusCode).toBe(200)
    expect((await getMe(ctx.app, { ...a.auth, 'x-customer-token': second.access_token })).statusCode).toBe(200)
    const res = await logout(ana.customer.id)
    expect(res.statusCode).toBe(204)
    expect(res.body).toBe('')
    expectError(await refresh(ana.refreshToken), 401, 'invalid_token')
    expectError(await refresh(second.refresh_token), 401, 'invalid_token')
    expect(await liveTokens(ana.customer.id)).toHaveLength(0)
    expectError(await getMe(ctx.app, ana.headers), 401, 'invalid_token')
    expectError(await getMe(ctx.app, { ...a.auth, 'x-customer-token': second.access_token }), 401, 'invalid_token')
    const audit = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, ana.customer.id), eq(auditLog.action, 'stf.customer.signed_out')))
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({ actorType: 'seller', actorId: a.seller.id, data: { revoked: 2 } })
  })

  it("accepts the customer's own token alongside and records the customer as actor", async () => {
    const ana = await createTestCustomer(ctx.app, a)
    expect((await logout(ana.customer.id, ana.headers)).statusCode).toBe(204)
    expectError(await refresh(ana.refreshToken), 401, 'invalid_token')
    const [entry] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, ana.customer.id), eq(auditLog.action, 'stf.customer.signed_out')))
    expect(entry).toMatchObject({ actorType: 'customer', actorId: ana.customer.id })
  })

  it("refuses another customer's token with 403 forbidden and an invalid one with 401 invalid_token", async () => {
    const ana = await createTestCustomer(ctx.app, a)
    const bia = await createTestCustomer(ctx.app, a)
    expectError(await logout(ana.customer.id, bia.headers), 403, 'forbidden')
    expectError(await logout(ana.customer.id, { ...a.auth, 'x-customer-token': 'a.b.c' }), 401, 'invalid_token')
    expect((await refresh(ana.refreshToken)).statusCode).toBe(200)
  })

  it("answers 404 not_found for another seller's customer and for an unknown one, leaving their sessions alone", async () => {
    const ana = await createTestCustomer(ctx.app, a)
    const atB = await logout(ana.customer.id, b.auth)
    const unknown = await logout('00000000-0000-4000-8000-000000000000', b.auth)
    expectError(atB, 404, 'not_found')
    expectError(unknown, 404, 'not_found')
    expect(atB.json().message).toBe(unknown.json().message)
    expect((await refresh(ana.refreshToken)).statusCode).toBe(200)
  })

  it('answers 204 again for a customer already signed out', async () => {
    const ana = await createTestCustomer(ctx.app, a)
    expect((await logout(ana.customer.id)).statusCode).toBe(204)
    expect((await logout(ana.customer.id)).statusCode).toBe(204)
  })

  it('refuses a missing or malformed user_id with 400 validation_error, and needs Basic credentials', async () => {
    expectError(await ctx.app.inject({ method: 'DELETE', url: '/stf/v1/auth/logout', headers: a.auth }), 400, 'validation_error')
    expectError(await logout('not-a-uuid'), 400, 'validation_error')
    expectError(await logout('00000000-0000-4000-8000-000000000000', {}), 401, 'unauthorized')
  })
})
