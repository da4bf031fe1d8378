import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { listInventories } from '../../src/domain/catalog/list-inventories.js'
import { events } from '../../src/domain/catalog/events.table.js'
import { coupons } from '../../src/domain/coupons/coupons.table.js'
import { DEMO_ADMIN_EMAIL, seedDemo, type DemoData } from '../../src/domain/demo/seed-demo.js'
import { ensureBuiltins } from '../../src/domain/staff/ensure-builtins.js'
import { staffUsers } from '../../src/domain/staff/users.table.js'
import { affiliates } from '../../src/domain/sellers/affiliates.table.js'
import { sellers } from '../../src/domain/sellers/sellers.table.js'
import { useTestApp } from '../build-app.js'
import { basicAuth } from '../factories/sellers.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { startServerProcess } from '../support/server-process.js'
import { eventually } from '../support/smtp-sink.js'

const ctx = useTestApp()

describe('seedDemo', () => {
  const today = new Date()
  let demo: DemoData

  beforeAll(async () => {
    demo = (await seedDemo(ctx.app.db, { tokenHmac: ctx.app.secrets.tokenHmac, today }))!
  })

  it('creates a seller with published events over the next weeks, inventories with variants, a coupon and an affiliate', async () => {
    expect(demo).not.toBeNull()
    const rows = await ctx.app.db.select().from(events).where(eq(events.sellerId, demo.sellerId))
    expect(rows.length).toBeGreaterThanOrEqual(3)
    expect(rows.every((e) => e.status === 'published')).toBe(true)
    expect(rows.map((e) => e.id).sort()).toEqual([...demo.eventIds].sort())

    const todayString = today.toISOString().slice(0, 10)
    const inSixWeeks = new Date(today.getTime() + 42 * 86_400_000).toISOString().slice(0, 10)
    const pages = await Promise.all(demo.eventIds.map((eventId) => listInventories(ctx.app.db, { eventId, page: 1, limit: 100 })))
    for (const page of pages) {
      expect(page.rows.length).toBeGreaterThan(0)
      for (const inventory of page.rows) {
        expect(inventory.date > todayString && inventory.date <= inSixWeeks).toBe(true)
        expect(inventory.available).toBe(inventory.capacity)
      }
    }
    expect(pages.flatMap((page) => page.rows).some((i) => i.variants.length >= 2)).toBe(true)

    const [coupon] = await ctx.app.db.select().from(coupons).where(eq(coupons.sellerId, demo.sellerId))
    expect(coupon).toMatchObject({ code: demo.couponCode, active: true })
    const [affiliate] = await ctx.app.db.select().from(affiliates).where(eq(affiliates.sellerId, demo.sellerId))
    expect(affiliate).toMatchObject({ code: demo.affiliateCode, active: true })
  })

  it('answers credentials that work against the storefront, with and without the affiliate code', async () => {
    const headers = basicAuth(demo.sellerId, demo.apiKey)
    const res = await ctx.app.inject({ method: 'GET', url: '/stf/v1/seller', headers })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ id: demo.sellerId, affiliate: null })
    const affiliated = await ctx.app.inject({ method: 'GET', url: '/stf/v1/seller', headers: { ...headers, 'x-affiliate-code': demo.affiliateCode } })
    expect(affiliated.json().affiliate).toMatchObject({ code: demo.affiliateCode })
  })

  it('creates a demo admin whose printed password signs in to the back office, where the demo seller is', async () => {
    expect(demo.admin).toEqual({ email: DEMO_ADMIN_EMAIL, password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) })
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/iam/v1/auth/login',
      payload: { username: demo.admin!.email, password: demo.admin!.password },
    })
    expect(login.statusCode).toBe(200)
    expect(login.json().user.roles).toEqual(['admin'])
    const listed = await ctx.app.inject({ method: 'GET', url: '/adm/v1/sellers', headers: { authorization: `Bearer ${login.json().access_token}` } })
    expect(listed.json().data.map((s: { id: string }) => s.id)).toEqual([demo.sellerId])
  })

  it('changes nothing once a seller exists', async () => {
    expect(await seedDemo(ctx.app.db, { tokenHmac: ctx.app.secrets.tokenHmac })).toBeNull()
    expect(await ctx.app.db.select().from(sellers)).toHaveLength(1)
  })

  it('reports the configured admin instead of creating one', async () => {
    await resetDatabase(await testDatabase())
    await ensureBuiltins(ctx.app.db)
    const seeded = (await seedDemo(ctx.app.db, { tokenHmac: ctx.app.secrets.tokenHmac, adminEmail: 'boss@example.com' }))!
    expect(seeded.admin).toEqual({ email: 'boss@example.com', password: null })
    expect(await ctx.app.db.select().from(staffUsers)).toEqual([])
  })
})

describe('npm start with a new embedded database', () => {
  it('seeds once, prints working storefront credentials and a curl line, and leaves the data alone on the next start', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'boxoffice-demo-'))
    const env = { SEED_DEMO: 'true', DATA_DIR: dataDir }
    const first = await startServerProcess(env, { databaseUrl: '' })
    let sellerId: string
    let apiKey: string
    try {
      // The banner is printed once the server listens, a moment after it starts answering.
      await eventually(() => /curl -u /.test(first.output()), 90_000)
      const output = first.output()
      sellerId = /seller id:\s+([0-9a-f-]{36})/.exec(output)![1]!
      apiKey = /API key:\s+(sk_[A-Za-z0-9_-]+)/.exec(output)![1]!
      expect(output).toContain(`curl -u ${sellerId}:${apiKey} ${first.baseUrl}/stf/v1/events`)
      const res = await fetch(`${first.baseUrl}/stf/v1/seller`, { headers: basicAuth(sellerId, apiKey) })
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ id: sellerId, name: 'Demo Tickets' })
      const [, email, password] = /admin login:\s+(\S+) \/ (\S+)/.exec(output)!
      expect(email).toBe(DEMO_ADMIN_EMAIL)
      const login = await fetch(`${first.baseUrl}/iam/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: email, password }),
      })
      expect(login.status).toBe(200)
      const affiliated = await fetch(`${first.baseUrl}/stf/v1/seller`, { headers: { ...basicAuth(sellerId, apiKey), 'x-affiliate-code': 'PARCEIRO' } })
      expect(((await affiliated.json()) as { affiliate: unknown }).affiliate).toMatchObject({ code: 'PARCEIRO' })
    } finally {
      expect(await first.stop()).toBe(0)
    }

    const second = await startServerProcess(env, { databaseUrl: '' })
    try {
      expect(second.output()).not.toContain('Demo data created')
      const res = await fetch(`${second.baseUrl}/stf/v1/seller`, { headers: basicAuth(sellerId, apiKey) })
      expect(res.status).toBe(200)
    } finally {
      await second.stop()
    }
  }, 120_000)

  it('seeds nothing with SEED_DEMO=false', async () => {
    const server = await startServerProcess({ SEED_DEMO: 'false' }, { databaseUrl: '' })
    try {
      expect(server.output()).not.toContain('Demo data created')
    } finally {
      await server.stop()
    }
  }, 60_000)
})
