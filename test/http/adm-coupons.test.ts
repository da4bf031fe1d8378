import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import type { EventRow } from '../../src/domain/catalog/events.repo.js'
import type { InventoryRow } from '../../src/domain/catalog/inventories.repo.js'
import { coupons } from '../../src/domain/coupons/coupons.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestSeller, useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { createStaff } from '../support/staff.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let adm: AdmClient
let eventOfA: EventRow
let inventoryOfA: InventoryRow
let eventOfB: EventRow
let inventoryOfB: InventoryRow

beforeAll(async () => {
  adm = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.catalog.read', 'adm.catalog.write'] })).auth)
  eventOfA = await createTestEvent(ctx.app, a.seller.id)
  inventoryOfA = await createTestInventory(ctx.app, eventOfA)
  eventOfB = await createTestEvent(ctx.app, b.seller.id)
  inventoryOfB = await createTestInventory(ctx.app, eventOfB)
})

const code = () => `CP${randomUUID().slice(0, 8).toUpperCase()}`

const postCoupon = async (body: Record<string, unknown>, sellerId = a.seller.id) => {
  const res = await adm.post(`/sellers/${sellerId}/coupons`, { code: code(), type: 'percent', value: 10, ...body })
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

const expect400 = (res: { statusCode: number; json(): { code: string; details?: { path: string }[] } }, path?: string) => {
  expect(res.statusCode).toBe(400)
  expect(res.json().code).toBe('validation_error')
  if (path) expect(res.json().details?.map((d) => d.path)).toContain(path)
}

describe('POST /adm/v1/sellers/{id}/coupons', () => {
  it('creates an active coupon covering everything by default', async () => {
    const c = code()
    const res = await adm.post(`/sellers/${a.seller.id}/coupons`, { code: c, type: 'fixed', value: 1500 })
    expect(res.statusCode).toBe(201)
    expect(res.json()).toEqual({
      id: expect.any(String),
      seller_id: a.seller.id,
      code: c,
      type: 'fixed',
      value: 1500,
      event_ids: [],
      inventory_ids: [],
      starts_at: null,
      ends_at: null,
      max_uses: null,
      max_uses_per_customer: null,
      min_subtotal: null,
      active: true,
      uses: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, res.json().id), eq(auditLog.action, 'adm.coupon.created')))
    expect(audit).toMatchObject({ actorType: 'staff', sellerId: a.seller.id })
  })

  it('takes a scope of its own events and inventories, a window in UTC, limits and a minimum', async () => {
    const coupon = await postCoupon({
      type: 'percent',
      value: 100,
      event_ids: [eventOfA.id],
      inventory_ids: [inventoryOfA.id, inventoryOfA.id],
      starts_at: '2030-01-01T00:00:00-03:00',
      ends_at: '2030-02-01T00:00:00Z',
      max_uses: 100,
      max_uses_per_customer: 2,
      min_subtotal: 10_000,
      active: false,
    })
    expect(coupon).toMatchObject({
      value: 100,
      event_ids: [eventOfA.id],
      inventory_ids: [inventoryOfA.id],
      starts_at: '2030-01-01T03:00:00.000Z',
      ends_at: '2030-02-01T00:00:00.000Z',
      max_uses: 100,
      max_uses_per_customer: 2,
      min_subtotal: 10_000,
      active: false,
    })
  })

  it('refuses percent values outside 1..100, fixed values under one centavo, and a window that ends before it starts', async () => {
    const url = `/sellers/${a.seller.id}/coupons`
    for (const value of [0, 101, 12.5]) expect400(await adm.post(url, { code: code(), type: 'percent', value }), 'value')
    for (const value of [0, -5, 0.5]) expect400(await adm.post(url, { code: code(), type: 'fixed', value }), 'value')
    expect400(await adm.post(url, { code: code(), type: 'fixed', value: 100, starts_at: '2030-02-01T00:00:00Z', ends_at: '2030-01-01T00:00:00Z' }), 'ends_at')
    expect400(await adm.post(url, { code: code(), type: 'fixed', value: 100, starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-01T00:00:00Z' }), 'ends_at')
    expect400(await adm.post(url, { code: code(), type: 'bogus', value: 1 }), 'type')
    expect400(await adm.post(url, { code: code(), type: 'fixed', value: 1, starts_at: '2030-01-01' }), 'starts_at')
    expect400(await adm.post(url, { code: code(), type: 'fixed', value: 1, max_uses: 0 }), 'max_uses')
    expect400(await adm.post(url, { code: code(), type: 'fixed', value: 1, min_subtotal: -1 }), 'min_subtotal')
    expect400(await adm.post(url, { code: 'has space', type: 'fixed', value: 1 }), 'code')
    expect400(await adm.post(url, { code: code(), type: 'fixed', value: 1, uses: 3 }))
  })

  it("refuses event_ids and inventory_ids naming another seller's objects or none, exactly alike", async () => {
    const url = `/sellers/${a.seller.id}/coupons`
    const cases = [
      [{ event_ids: [eventOfB.id] }, 'event_ids.0', 'is not an event of this seller'],
      [{ event_ids: [eventOfA.id, randomUUID()] }, 'event_ids.1', 'is not an event of this seller'],
      [{ inventory_ids: [inventoryOfB.id] }, 'inventory_ids.0', 'is not an inventory of this seller'],
      [{ inventory_ids: [randomUUID()] }, 'inventory_ids.0', 'is not an inventory of this seller'],
      // An event id is not an inventory id, even of the same seller.
      [{ inventory_ids: [eventOfA.id] }, 'inventory_ids.0', 'is not an inventory of this seller'],
    ] as const
    for (const [scope, path, message] of cases) {
      const res = await adm.post(url, { code: code(), type: 'percent', value: 5, ...scope })
      expect(res.statusCode).toBe(400)
      expect(res.json().details).toEqual([{ path, message }])
    }
    expect((await ctx.app.db.select().from(coupons).where(eq(coupons.sellerId, a.seller.id))).every((c) => !c.eventIds.includes(eventOfB.id))).toBe(true)
  })

  it('answers 409 already_exists for a code the seller has in any case; another seller may use it', async () => {
    const c = code()
    await postCoupon({ code: c })
    const clash = await adm.post(`/sellers/${a.seller.id}/coupons`, { code: c.toLowerCase(), type: 'fixed', value: 1 })
    expect(clash.statusCode).toBe(409)
    expect(clash.json().code).toBe('already_exists')
    await postCoupon({ code: c }, b.seller.id)
  })

  it('answers 404 for an unknown seller', async () => {
    expect((await adm.post(`/sellers/${randomUUID()}/coupons`, { code: code(), type: 'fixed', value: 1 })).statusCode).toBe(404)
    expect((await adm.get(`/sellers/${randomUUID()}/coupons`)).statusCode).toBe(404)
  })
})

describe('GET /adm/v1/sellers/{id}/coupons', () => {
  it("lists the seller's coupons by code, filters by active, and never shows another seller's", async () => {
    const c = await createTestSeller(ctx.app)
    await postCoupon({ code: 'ZETA' }, c.seller.id)
    await postCoupon({ code: 'alpha', active: false }, c.seller.id)
    await postCoupon({ code: 'Mid' }, c.seller.id)
    await postCoupon({ code: 'AAA' }, b.seller.id)
    const res = await adm.get(`/sellers/${c.seller.id}/coupons`)
    expect(res.statusCode).toBe(200)
    expect(res.json().data.map((x: { code: string }) => x.code)).toEqual(['alpha', 'Mid', 'ZETA'])
    expect(res.json().meta).toEqual({ count: 3, limit: 20, page: 1, total: 3 })
    expect((await adm.get(`/sellers/${c.seller.id}/coupons?active=false`)).json().data.map((x: { code: string }) => x.code)).toEqual(['alpha'])
    expect((await adm.get(`/sellers/${c.seller.id}/coupons?active=true&limit=1&page=2`)).json()).toMatchObject({
      data: [{ code: 'ZETA' }],
      meta: { count: 1, total: 2 },
    })
    expect400(await adm.get(`/sellers/${c.seller.id}/coupons?active=yes`))
  })
})

describe('PUT /adm/v1/coupons/{id}', () => {
  it('changes the fields given, clears bounds and limits with null, and audits the change', async () => {
    const coupon = await postCoupon({ max_uses: 10, ends_at: '2030-01-01T00:00:00Z', event_ids: [eventOfA.id] })
    const res = await adm.put(`/coupons/${coupon.id}`, { value: 25, max_uses: null, ends_at: null, event_ids: [], active: false })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ code: coupon.code, type: 'percent', value: 25, max_uses: null, ends_at: null, event_ids: [], active: false })
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, coupon.id), eq(auditLog.action, 'adm.coupon.updated')))
    expect((audit!.data as { fields: string[] }).fields.sort()).toEqual(['active', 'ends_at', 'event_ids', 'max_uses', 'value'])
  })

  it('checks the terms as they will be: a new type against the current value, a new end against the current start', async () => {
    const coupon = await postCoupon({ type: 'fixed', value: 5000, starts_at: '2030-01-10T00:00:00Z' })
    expect400(await adm.put(`/coupons/${coupon.id}`, { type: 'percent' }), 'value')
    expect((await adm.put(`/coupons/${coupon.id}`, { type: 'percent', value: 50 })).json()).toMatchObject({ type: 'percent', value: 50 })
    expect400(await adm.put(`/coupons/${coupon.id}`, { ends_at: '2030-01-05T00:00:00Z' }), 'ends_at')
  })

  it('keeps a usage limit at or above the uses so far', async () => {
    const coupon = await postCoupon({ max_uses: 10 })
    await ctx.app.db.update(coupons).set({ uses: 4 }).where(eq(coupons.id, coupon.id))
    expect400(await adm.put(`/coupons/${coupon.id}`, { max_uses: 3 }), 'max_uses')
    expect((await adm.put(`/coupons/${coupon.id}`, { max_uses: 4 })).json()).toMatchObject({ max_uses: 4, uses: 4 })
  })

  it("refuses another seller's events and inventories, a code the seller has, an empty change; 404 for an unknown coupon", async () => {
    const coupon = await postCoupon({})
    const other = await postCoupon({})
    const foreign = await adm.put(`/coupons/${coupon.id}`, { event_ids: [eventOfB.id], inventory_ids: [inventoryOfB.id] })
    expect(foreign.statusCode).toBe(400)
    expect(foreign.json().details.map((d: { path: string }) => d.path)).toEqual(['event_ids.0', 'inventory_ids.0'])
    const clash = await adm.put(`/coupons/${coupon.id}`, { code: other.code.toLowerCase() })
    expect(clash.statusCode).toBe(409)
    expect(clash.json().code).toBe('already_exists')
    expect((await adm.put(`/coupons/${coupon.id}`, { code: coupon.code.toLowerCase() })).json().code).toBe(coupon.code.toLowerCase())
    expect400(await adm.put(`/coupons/${coupon.id}`, {}))
    expect400(await adm.put(`/coupons/${coupon.id}`, { seller_id: b.seller.id }))
    expect((await adm.put(`/coupons/${randomUUID()}`, { active: false })).statusCode).toBe(404)
    const [row] = await ctx.app.db.select().from(coupons).where(eq(coupons.id, coupon.id))
    expect(row).toMatchObject({ sellerId: a.seller.id, eventIds: [], inventoryIds: [] })
  })
})
