import { count, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { events } from '../../src/domain/catalog/events.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { orders, ticketDownloads } from '../../src/domain/orders/orders.table.js'
import { useTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestCustomer, type TestCustomer } from '../factories/customers.js'
import { createTestAffiliate, useTwoSellers } from '../factories/sellers.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let alice: TestCustomer
let bob: TestCustomer
let carol: TestCustomer // a customer of seller b
let inventoryId: string

beforeAll(async () => {
  ;[alice, bob, carol] = await Promise.all([createTestCustomer(ctx.app, a), createTestCustomer(ctx.app, a), createTestCustomer(ctx.app, b)])
  const event = await createTestEvent(ctx.app, a.seller.id)
  inventoryId = (await createTestInventory(ctx.app, event, { capacity: 500, price: 5000 })).id
  await createTestAffiliate(ctx.app, a.seller.id, { code: 'SHOPAFF' })
})

type Headers = Record<string, string>

const openBasket = async (headers: Headers, quantity = 1) => {
  const res = await ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items: [{ inventory_id: inventoryId, quantity }] } })
  expect(res.statusCode).toBe(201)
  return res.json() as { id: string; customer_id: string | null }
}
const checkout = (basketId: string, headers: Headers, payload: object = { payment_method: 'pix' }) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/checkout`, headers, payload })
const placed = async (headers: Headers, quantity = 1) => {
  const res = await checkout((await openBasket(headers, quantity)).id, headers)
  expect(res.statusCode).toBe(201)
  return res.json()
}

describe('POST /stf/v1/baskets with X-Customer-Token', () => {
  it('links the basket to the customer', async () => {
    expect((await openBasket(alice.headers)).customer_id).toBe(alice.customer.id)
    expect((await openBasket(a.auth)).customer_id).toBeNull()
  })

  it('refuses an invalid token or one issued for another seller with 401 invalid_token', async () => {
    for (const token of ['not-a-token', carol.accessToken, `${alice.accessToken}x`]) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/stf/v1/baskets',
        headers: { ...a.auth, 'x-customer-token': token },
        payload: { items: [] },
      })
      expect(res.statusCode).toBe(401)
      expect(res.json().code).toBe('invalid_token')
    }
  })
})

describe('POST /stf/v1/baskets/{id}/checkout', () => {
  it('answers 201 with the Order, and the basket reads checked_out', async () => {
    const basket = await openBasket(a.auth, 2)
    const res = await checkout(basket.id, alice.headers, { payment_method: 'credit_card', installments: 2, payment_reference: 'tx-42' })
    expect(res.statusCode).toBe(201)
    const order = res.json()
    expect(Object.keys(order).sort()).toEqual([
      'affiliate_code',
      'buyer',
      'created_at',
      'customer_id',
      'id',
      'items',
      'paid_total',
      'payment',
      'payment_due_at',
      'payments',
      'refunded_total',
      'refunds',
      'source',
      'status',
      'tickets',
      'totals',
      'transferred_from',
    ])
    // 10000 in 2 at 2.99 %: 5225 each.
    expect(order).toMatchObject({
      status: 'confirmed',
      customer_id: alice.customer.id,
      affiliate_code: null,
      totals: { subtotal: 10000, discount: 0, interest: 450, total: 10450 },
      payment: { method: 'credit_card', installments: 2, installment_amount: 5225, reference: 'tx-42' },
    })
    expect(order.items).toEqual([
      expect.objectContaining({ inventory_id: inventoryId, quantity: 2, unit_price: 5000, discount: 0, total: 10000, coupon: null }),
    ])
    expect(order.tickets).toHaveLength(2)
    for (const t of order.tickets)
      expect(t).toEqual({
        identifier: expect.stringMatching(/^[A-Z2-7]{26}$/),
        inventory_id: inventoryId,
        variant: null,
        status: 'valid',
        seat: null,
        holder: { name: order.buyer.name, document: null },
        code_version: 0,
        transferred_to: null,
        first_access_at: null,
        code: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      })
    expect(order).toMatchObject({ source: 'checkout', transferred_from: null })
    const after = await ctx.app.inject({ method: 'GET', url: `/stf/v1/baskets/${basket.id}`, headers: a.auth })
    expect(after.json()).toMatchObject({ status: 'checked_out', customer_id: alice.customer.id })
    const [audit] = await ctx.app.db.select().from(auditLog).where(eq(auditLog.targetId, order.id))
    expect(audit).toMatchObject({ action: 'stf.order.placed', actorType: 'customer', actorId: alice.customer.id })
  })

  it('without a customer token is a guest checkout, which needs the buyer; a token that is sent must be valid', async () => {
    const basket = await openBasket(a.auth)
    const res = await checkout(basket.id, a.auth)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'buyer' }] })
    expect((await checkout(basket.id, { ...a.auth, 'x-customer-token': carol.accessToken })).statusCode).toBe(401)
  })

  it("does not find a basket linked to another customer, or another seller's basket", async () => {
    const basket = await openBasket(alice.headers)
    expect((await checkout(basket.id, bob.headers)).statusCode).toBe(404)
    expect((await checkout(basket.id, carol.headers)).statusCode).toBe(404)
    expect((await checkout(basket.id, alice.headers)).statusCode).toBe(201)
  })

  it('answers 422 basket_empty, 409 basket_checked_out once checked out, 422 unsupported_payment_method, 400 for a plan not offered', async () => {
    const empty = await ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: a.auth, payload: { items: [] } })
    const emptyRes = await checkout(empty.json().id, alice.headers)
    expect(emptyRes.statusCode).toBe(422)
    expect(emptyRes.json().code).toBe('basket_empty')

    const basket = await openBasket(a.auth)
    const cash = await checkout(basket.id, alice.headers, { payment_method: 'cash' })
    expect(cash.statusCode).toBe(422)
    expect(cash.json().code).toBe('unsupported_payment_method')
    const tooMany = await checkout(basket.id, alice.headers, { payment_method: 'credit_card', installments: 13 })
    expect(tooMany.statusCode).toBe(400)
    expect(tooMany.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'installments' }] })
    for (const payload of [
      { payment_method: 'pix', installments: 0 },
      { payment_method: 'pix', tip: 1 },
      {},
      { payment_method: 'pix', payment_reference: 'r'.repeat(256) },
    ]) {
      const res = await checkout(basket.id, alice.headers, payload)
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
    const order = await checkout(basket.id, alice.headers)
    expect(order.statusCode).toBe(201)
    const again = await checkout(basket.id, alice.headers)
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ code: 'basket_checked_out', details: { order_id: order.json().id } })
  })

  describe('when the held tickets are no longer there at the sale', () => {
    const refusedWithNothingWritten = async (basketId: string, inventory: { id: string }, soldBefore: number, stoppedSelling = false) => {
      const res = await checkout(basketId, alice.headers)
      expect(res.statusCode).toBe(409)
      expect(res.json()).toMatchObject(
        stoppedSelling
          ? { code: 'inventory_unavailable', details: { inventory_id: inventory.id } }
          : { code: 'insufficient_inventory', details: [{ path: 'items', message: expect.stringContaining(inventory.id) }] },
      )
      const [after] = await ctx.app.db.select({ sold: inventories.sold }).from(inventories).where(eq(inventories.id, inventory.id))
      expect(after!.sold).toBe(soldBefore)
      expect((await ctx.app.db.select({ n: count() }).from(orders).where(eq(orders.basketId, basketId)))[0]!.n).toBe(0)
      expect((await ctx.app.db.select({ n: count() }).from(auditLog).where(eq(auditLog.action, 'stf.order.placed')))[0]!.n).toBe(auditsBefore)
      const basket = await ctx.app.inject({ method: 'GET', url: `/stf/v1/baskets/${basketId}`, headers: a.auth })
      expect(basket.json().status).toBe('open')
    }
    let auditsBefore: number
    const countPlacedAudits = async () => (await ctx.app.db.select({ n: count() }).from(auditLog).where(eq(auditLog.action, 'stf.order.placed')))[0]!.n

    it('refuses with 409 insufficient_inventory and writes nothing when something else took them', async () => {
      const event = await createTestEvent(ctx.app, a.seller.id)
      const inventory = await createTestInventory(ctx.app, event, { capacity: 2, price: 1000 })
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/stf/v1/baskets',
        headers: a.auth,
        payload: { items: [{ inventory_id: inventory.id, quantity: 2 }] },
      })
      // Say its hold lapsed for a moment and another sale took one ticket.
      await ctx.app.db.update(inventories).set({ sold: 1 }).where(eq(inventories.id, inventory.id))
      auditsBefore = await countPlacedAudits()
      await refusedWithNothingWritten(res.json().id, inventory, 1)
    })

    it('refuses with 409 inventory_unavailable and writes nothing when the event stopped selling', async () => {
      const event = await createTestEvent(ctx.app, a.seller.id)
      const inventory = await createTestInventory(ctx.app, event, { capacity: 5, price: 1000 })
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/stf/v1/baskets',
        headers: a.auth,
        payload: { items: [{ inventory_id: inventory.id, quantity: 1 }] },
      })
      await ctx.app.db.update(events).set({ status: 'cancelled' }).where(eq(events.id, event.id))
      auditsBefore = await countPlacedAudits()
      await refusedWithNothingWritten(res.json().id, inventory, 0, true)
    })
  })

  it('records the affiliate of a basket created under its code', async () => {
    const headers = { ...alice.headers, 'x-affiliate-code': 'SHOPAFF' }
    const order = await placed(headers)
    expect(order.affiliate_code).toBe('SHOPAFF')
    const [row] = await ctx.app.db.select().from(orders).where(eq(orders.id, order.id))
    expect(row!.affiliateId).not.toBeNull()
  })
})

describe('max_uses_per_customer', () => {
  it('refuses the coupon for a customer who used it up, at checkout and on a basket linked to that customer', async () => {
    await createTestCoupon(ctx.app, a.seller.id, { code: 'ONEEACH', type: 'fixed', value: 500, maxUsesPerCustomer: 1 })
    const apply = (basketId: string) =>
      ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/coupon`, headers: a.auth, payload: { code: 'oneeach' } })
    const frank = await createTestCustomer(ctx.app, a)
    const anonymous = [await openBasket(a.auth), await openBasket(a.auth)]
    for (const basket of anonymous) expect((await apply(basket.id)).statusCode).toBe(200)
    const first = await checkout(anonymous[0]!.id, frank.headers)
    expect(first.json().totals.discount).toBe(500)
    const second = await checkout(anonymous[1]!.id, frank.headers)
    expect(second.statusCode).toBe(422)
    expect(second.json().code).toBe('coupon_exhausted')

    const linked = await openBasket(frank.headers)
    const refused = await apply(linked.id)
    expect(refused.statusCode).toBe(422)
    expect(refused.json().code).toBe('coupon_exhausted')
    // Another customer may still use it.
    expect((await checkout(anonymous[1]!.id, bob.headers)).json().totals.discount).toBe(500)
  })
})

describe('Idempotency-Key on checkout', () => {
  it('replays the order for the same key and body, refuses another body, and places one order for 10 concurrent calls', async () => {
    const basket = await openBasket(a.auth)
    const headers = { ...alice.headers, 'idempotency-key': 'checkout-1' }
    const first = await checkout(basket.id, headers)
    expect(first.statusCode).toBe(201)
    const again = await checkout(basket.id, headers)
    expect(again.statusCode).toBe(201)
    expect(again.body).toBe(first.body)
    expect(again.headers['idempotent-replayed']).toBe('true')
    const other = await checkout(basket.id, headers, { payment_method: 'boleto' })
    expect(other.statusCode).toBe(409)
    expect(other.json().code).toBe('idempotency_conflict')

    const burst = await openBasket(a.auth, 2)
    const answers = await Promise.all(Array.from({ length: 10 }, () => checkout(burst.id, { ...alice.headers, 'idempotency-key': 'checkout-burst' })))
    expect(answers.map((r) => r.statusCode)).toEqual(Array(10).fill(201))
    expect(new Set(answers.map((r) => r.body)).size).toBe(1)
    expect(Number((await ctx.app.db.select({ n: count() }).from(orders).where(eq(orders.basketId, burst.id)))[0]!.n)).toBe(1)
  })
})

describe('GET /stf/v1/orders', () => {
  it("lists the customer's own orders, newest first, paginated", async () => {
    const dave = await createTestCustomer(ctx.app, a)
    const first = await placed(dave.headers)
    const second = await placed(dave.headers, 2)
    await placed(bob.headers)
    const res = await ctx.app.inject({ method: 'GET', url: '/stf/v1/orders', headers: dave.headers })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.map((o: { id: string }) => o.id)).toEqual([second.id, first.id])
    expect(res.json().data[0]).toEqual(second)
    expect(res.json().meta).toEqual({ count: 2, limit: 20, page: 1, total: 2 })
    const page = await ctx.app.inject({ method: 'GET', url: '/stf/v1/orders?limit=1&page=2', headers: dave.headers })
    expect(page.json()).toMatchObject({ data: [{ id: first.id }], meta: { count: 1, limit: 1, page: 2, total: 2 } })
  })

  it('under an affiliate code lists only the orders placed under it', async () => {
    const erin = await createTestCustomer(ctx.app, a)
    await placed(erin.headers)
    const viaAffiliate = await placed({ ...erin.headers, 'x-affiliate-code': 'SHOPAFF' })
    const res = await ctx.app.inject({ method: 'GET', url: '/stf/v1/orders', headers: { ...erin.headers, 'x-affiliate-code': 'SHOPAFF' } })
    expect(res.json().data.map((o: { id: string }) => o.id)).toEqual([viaAffiliate.id])
  })

  it('needs a customer token', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/stf/v1/orders', headers: a.auth })
    expect(res.statusCode).toBe(401)
  })
})

describe('GET /stf/v1/orders/{id}', () => {
  it("answers an order of this seller; another seller's, another affiliate's or another customer's is not found", async () => {
    const order = await placed(alice.headers)
    expect((await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: a.auth })).json()).toEqual(order)
    expect((await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: alice.headers })).statusCode).toBe(200)
    for (const headers of [b.auth, bob.headers, { ...a.auth, 'x-affiliate-code': 'SHOPAFF' }]) {
      const res = await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers })
      expect(res.statusCode).toBe(404)
      expect(res.json().code).toBe('not_found')
    }
    const affiliateOrder = await placed({ ...alice.headers, 'x-affiliate-code': 'SHOPAFF' })
    expect(
      (await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${affiliateOrder.id}`, headers: { ...a.auth, 'x-affiliate-code': 'shopaff' } })).statusCode,
    ).toBe(200)
    expect((await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${affiliateOrder.id}`, headers: a.auth })).statusCode).toBe(200)
    expect((await ctx.app.inject({ method: 'GET', url: '/stf/v1/orders/not-a-uuid', headers: a.auth })).statusCode).toBe(400)
  })
})

describe('POST /stf/v1/tickets/downloads', () => {
  const register = (headers: Headers, payload: object) => ctx.app.inject({ method: 'POST', url: '/stf/v1/tickets/downloads', headers, payload })

  it('answers registered, first_access and unknown, and keeps the call', async () => {
    const order = await placed(alice.headers, 2)
    const [t1, t2] = order.tickets.map((t: { identifier: string }) => t.identifier)
    const first = await register(a.auth, { order_id: order.id, identifiers: [t1, 'FORGED'], source: 'email' })
    expect(first.statusCode).toBe(200)
    expect(first.json()).toEqual({ registered: 1, first_access: [t1], unknown: ['FORGED'], voided: [] })
    const second = await register(a.auth, { order_id: order.id, identifiers: [t1, t2], source: 'app', user_id: alice.customer.id })
    expect(second.json()).toEqual({ registered: 2, first_access: [t2], unknown: [], voided: [] })
    const read = (await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: a.auth })).json()
    expect(read.tickets.every((t: { first_access_at: string | null }) => typeof t.first_access_at === 'string')).toBe(true)
    const log = await ctx.app.db.select().from(ticketDownloads).where(eq(ticketDownloads.orderId, order.id))
    expect(log.map((l) => [l.source, l.userId, l.traceId !== null])).toEqual(
      expect.arrayContaining([
        ['email', null, true],
        ['app', alice.customer.id, true],
      ]),
    )
  })

  it("answers 404 for another seller's order or a user other than the order's customer", async () => {
    const order = await placed(alice.headers)
    const identifiers = [order.tickets[0].identifier]
    expect((await register(b.auth, { order_id: order.id, identifiers })).statusCode).toBe(404)
    expect((await register(a.auth, { order_id: order.id, identifiers, user_id: bob.customer.id })).statusCode).toBe(404)
  })

  it('validates the request: at least one identifier, source up to 64 characters, uuids', async () => {
    const order = await placed(alice.headers)
    for (const payload of [
      { order_id: order.id, identifiers: [] },
      { order_id: order.id, identifiers: ['X'], source: 's'.repeat(65) },
      { order_id: 'nope', identifiers: ['X'] },
      { order_id: order.id, identifiers: ['X'], user_id: 'nope' },
      { order_id: order.id, identifiers: ['X'], extra: true },
    ]) {
      const res = await register(a.auth, payload)
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
    expect((await register(a.auth, { order_id: order.id, identifiers: ['X'], source: 's'.repeat(64) })).statusCode).toBe(200)
  })
})
