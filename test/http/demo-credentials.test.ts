import { beforeAll, describe, expect, it } from 'vitest'
import { findDemoSeller, renewDemoCredentials } from '../../src/domain/demo/renew-demo-credentials.js'
import { DEMO_ADMIN_EMAIL, DEMO_BUYER_EMAIL, seedDemo, type DemoData } from '../../src/domain/demo/seed-demo.js'
import { useTestApp } from '../build-app.js'
import { basicAuth } from '../factories/sellers.js'
import { resetDatabase, testDatabase } from '../support/database.js'

const ctx = useTestApp()

const login = (password: string) =>
  ctx.app.inject({ method: 'POST', url: '/iam/v1/auth/login', payload: { username: DEMO_ADMIN_EMAIL, password } }).then((res) => res.statusCode)
const buyerLogin = (sellerId: string, apiKey: string, password: string) =>
  ctx.app
    .inject({ method: 'POST', url: '/stf/v1/auth/login', headers: basicAuth(sellerId, apiKey), payload: { email: DEMO_BUYER_EMAIL, password } })
    .then((res) => res.statusCode)
const seller = (sellerId: string, apiKey: string) =>
  ctx.app.inject({ method: 'GET', url: '/stf/v1/seller', headers: basicAuth(sellerId, apiKey) }).then((res) => res.statusCode)

/** The demo's credentials, printed once at seeding and stored hashed, are issued again on demand. */
describe('renewDemoCredentials', () => {
  let demo: DemoData

  beforeAll(async () => {
    demo = (await seedDemo(ctx.app.db, {
      tokenHmac: ctx.app.secrets.tokenHmac,
      codes: ctx.app.ticketCodes,
      verifyEmailTtlSeconds: ctx.app.config.ttl.stfVerifyEmail,
    }))!
  })

  it('issues a new API key beside the old one, new demo admin and buyer passwords instead of the old, and a pairing code that pairs', async () => {
    const renewed = (await renewDemoCredentials(ctx.app.db, { tokenHmac: ctx.app.secrets.tokenHmac }))!
    expect(renewed.sellerId).toBe(demo.sellerId)
    expect(renewed.apiKey).not.toBe(demo.apiKey)
    expect(await seller(demo.sellerId, renewed.apiKey)).toBe(200)
    expect(await seller(demo.sellerId, demo.apiKey)).toBe(200)

    expect(renewed.admin).toEqual({ email: DEMO_ADMIN_EMAIL, password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) })
    expect(await login(renewed.admin!.password)).toBe(200)
    expect(await login(demo.admin!.password!)).toBe(401)

    expect(renewed.buyer).toEqual({ email: DEMO_BUYER_EMAIL, password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) })
    expect(await buyerLogin(demo.sellerId, demo.apiKey, renewed.buyer!.password)).toBe(200)
    expect(await buyerLogin(demo.sellerId, demo.apiKey, demo.buyer.password)).toBe(401)

    const paired = await ctx.app.inject({ method: 'POST', url: '/chk/v1/pair', payload: { pairing_code: renewed.pairingCode } })
    expect(paired.statusCode).toBe(201)
    expect(paired.json().device).toMatchObject({ seller_id: demo.sellerId, name: 'Demo scanner' })
  })

  it('leaves the password of an admin configured through ADMIN_EMAIL alone', async () => {
    const before = (await renewDemoCredentials(ctx.app.db, { tokenHmac: ctx.app.secrets.tokenHmac }))!.admin!.password
    const renewed = (await renewDemoCredentials(ctx.app.db, { tokenHmac: ctx.app.secrets.tokenHmac, adminEmail: 'boss@example.com' }))!
    expect(renewed.admin).toBeNull()
    expect(await login(before)).toBe(200)
  })

  it('answers null, and issues nothing, without demo data', async () => {
    await resetDatabase(await testDatabase())
    expect(await findDemoSeller(ctx.app.db)).toBeNull()
    expect(await renewDemoCredentials(ctx.app.db, { tokenHmac: ctx.app.secrets.tokenHmac })).toBeNull()
  })
})
