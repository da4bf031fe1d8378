import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { tickets } from '../../src/domain/orders/orders.table.js'
import { placeOrder } from '../../src/domain/orders/place-order.js'
import { settingsOf } from '../../src/domain/sellers/seller-settings.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertTestCustomer } from '../factories/orders.js'
import { createTestAffiliate, createTestSeller, type TestSeller } from '../factories/sellers.js'
import { createStaff, type TestStaff } from '../support/staff.js'

const ctx = useTestApp()
let seller: TestSeller
let other: TestSeller
let reader: TestStaff
let writer: TestStaff
let nobody: TestStaff
let eventId: string
let inventoryId: string

beforeAll(async () => {
  seller = await createTestSeller(ctx.app)
  other = await createTestSeller(ctx.app)
  reader = await createStaff(ctx.app, { permissions: ['adm.orders.read'] })
  writer = await createStaff(ctx.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })
  nobody = await createStaff(ctx.app, { permissions: ['adm.catalog.read'] })
  const event = await createTestEvent(ctx.app, seller.seller.id)
  eventId = event.id
  inventoryId = (await createTestInventory(ctx.app, event, { capacity: 20, price: 5000 })).id
  await createTestAffiliate(ctx.app, seller.seller.id, { code: 'ADMAFF' })
})

async function order(s: TestSeller, quantity = 1, affiliateCode?: string, inventory = inventoryId) {
  const headers = { ...s.auth, ...(affiliateCode ? { 'x-affiliate-code': affiliateCode } : {}) }
  const basket = await ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items: [{ inventory_id: inventory, quantity }] } })
  expect(basket.statusCode).toBe(201)
  const affiliate = affiliateCode ? await ctx.app.sellerAuth.resolveAffiliate(s.seller.id, affiliateCode) : null
  const { body } = await placeOrder(ctx.app.db, {
    codes: ctx.app.ticketCodes,
    sellerId: s.seller.id,
    affiliate,
    basketId: basket.json().id,
    customerId: await insertTestCustomer(ctx.app, s.seller.id),
    settings: settingsOf(s.seller),
    paymentMethod: 'pix',
    actor: { type: 'system' },
  })
  return body
}

const available = async () =>
  (await ctx.app.inject({ method: 'GET', url: `/stf/v1/events/${eventId}/availability`, headers: seller.auth })).json().data[0].inventories[0].available

describe('GET /adm/v1/sellers/{id}/orders', () => {
  it("lists a seller's orders, newest first, filtered by affiliate code and status", async () => {
    const first = await order(seller)
    const second = await order(seller, 2, 'ADMAFF')
    const foreignEvent = await createTestEvent(ctx.app, other.seller.id)
    await order(other, 1, undefined, (await createTestInventory(ctx.app, foreignEvent)).id)

    const all = await ctx.app.inject({ method: 'GET', url: `/adm/v1/sellers/${seller.seller.id}/orders`, headers: reader.auth })
    expect(all.statusCode).toBe(200)
    expect(all.json().data.map((o: { id: string }) => o.id)).toEqual([second.id, first.id])
    expect(all.json().meta).toEqual({ count: 2, limit: 20, page: 1, total: 2 })
    expect(all.json().data[0]).toMatchObject({ seller_id: seller.seller.id, affiliate_code: 'ADMAFF', status: 'confirmed', cancelled_at: null })

    const byAffiliate = await ctx.app.inject({ method: 'GET', url: `/adm/v1/sellers/${seller.seller.id}/orders?affiliate_code=admaff`, headers: reader.auth })
    expect(byAffiliate.json().data.map((o: { id: string }) => o.id)).toEqual([second.id])
    const cancelled = await ctx.app.inject({ method: 'GET', url: `/adm/v1/sellers/${seller.seller.id}/orders?status=cancelled`, headers: reader.auth })
    expect(cancelled.json().data).toEqual([])
    const page = await ctx.app.inject({ method: 'GET', url: `/adm/v1/sellers/${seller.seller.id}/orders?limit=1&page=2`, headers: reader.auth })
    expect(page.json()).toMatchObject({ data: [{ id: first.id }], meta: { count: 1, limit: 1, page: 2, total: 2 } })
  })

  it('answers 404 for an unknown seller and 400 for a bad status', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: `/adm/v1/sellers/${randomUUID()}/orders`, headers: reader.auth })).statusCode).toBe(404)
    const bad = await ctx.app.inject({ method: 'GET', url: `/adm/v1/sellers/${seller.seller.id}/orders?status=open`, headers: reader.auth })
    expect(bad.statusCode).toBe(400)
  })

  it('needs a staff token with adm.orders.read', async () => {
    const url = `/adm/v1/sellers/${seller.seller.id}/orders`
    expect((await ctx.app.inject({ method: 'GET', url })).statusCode).toBe(401)
    expect((await ctx.app.inject({ method: 'GET', url, headers: seller.auth })).statusCode).toBe(401)
    const forbidden = await ctx.app.inject({ method: 'GET', url, headers: nobody.auth })
    expect(forbidden.statusCode).toBe(403)
    expect(forbidden.json().code).toBe('forbidden')
  })
})

describe('GET /adm/v1/orders/{id}', () => {
  it('reads any seller’s order with its items and tickets', async () => {
    const placed = await order(seller, 2)
    const res = await ctx.app.inject({ method: 'GET', url: `/adm/v1/orders/${placed.id}`, headers: reader.auth })
    expect(res.statusCode).toBe(200)
    const { seller_id: sellerId, cancelled_at: cancelledAt, ...storefrontShape } = res.json()
    expect(sellerId).toBe(seller.seller.id)
    expect(cancelledAt).toBeNull()
    const { seller_id: _s, cancelled_at: _c, ...expected } = placed
    expect(storefrontShape).toEqual(expected)
    expect((await ctx.app.inject({ method: 'GET', url: `/adm/v1/orders/${randomUUID()}`, headers: reader.auth })).statusCode).toBe(404)
    expect((await ctx.app.inject({ method: 'GET', url: '/adm/v1/orders/nope', headers: reader.auth })).statusCode).toBe(400)
    expect((await ctx.app.inject({ method: 'GET', url: `/adm/v1/orders/${placed.id}`, headers: nobody.auth })).statusCode).toBe(403)
  })
})

describe('POST /adm/v1/orders/{id}/cancel', () => {
  it('returns the tickets to availability and voids them; cancelling again changes nothing', async () => {
    const before = await available()
    const placed = await order(seller, 3)
    expect(await available()).toBe(before - 3)

    const res = await ctx.app.inject({ method: 'POST', url: `/adm/v1/orders/${placed.id}/cancel`, headers: writer.auth })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ id: placed.id, status: 'cancelled', cancelled_at: expect.any(String) })
    expect(await available()).toBe(before)
    const rows = await ctx.app.db.select().from(tickets).where(eq(tickets.orderId, placed.id))
    expect(rows.every((t) => t.voidedAt !== null)).toBe(true)
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, placed.id), eq(auditLog.action, 'adm.order.cancelled')))
    expect(audit).toMatchObject({ actorType: 'staff', actorId: writer.user.id })

    const again = await ctx.app.inject({ method: 'POST', url: `/adm/v1/orders/${placed.id}/cancel`, headers: writer.auth })
    expect(again.statusCode).toBe(200)
    expect(again.json().cancelled_at).toBe(res.json().cancelled_at)
    expect(await available()).toBe(before)
  })

  it('cancels once under concurrent requests', async () => {
    const before = await available()
    const placed = await order(seller, 2)
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => ctx.app.inject({ method: 'POST', url: `/adm/v1/orders/${placed.id}/cancel`, headers: writer.auth })),
    )
    expect(answers.map((r) => r.statusCode)).toEqual(Array(5).fill(200))
    expect(await available()).toBe(before)
  })

  it('needs adm.orders.write', async () => {
    const placed = await order(seller)
    const res = await ctx.app.inject({ method: 'POST', url: `/adm/v1/orders/${placed.id}/cancel`, headers: reader.auth })
    expect(res.statusCode).toBe(403)
    expect((await ctx.app.inject({ method: 'GET', url: `/adm/v1/orders/${placed.id}`, headers: reader.auth })).json().status).toBe('confirmed')
    expect((await ctx.app.inject({ method: 'POST', url: `/adm/v1/orders/${randomUUID()}/cancel`, headers: writer.auth })).statusCode).toBe(404)
  })
})
