import { randomUUID } from 'node:crypto'
import { and, count, eq, sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { baskets } from '../../src/domain/baskets/baskets.table.js'
import { heldQuantities } from '../../src/domain/inventory/held.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { coupons } from '../../src/domain/coupons/coupons.table.js'
import { cancelOrder } from '../../src/domain/orders/cancel-order.js'
import { couponRedemptions, orders, ticketDownloads, tickets } from '../../src/domain/orders/orders.table.js'
import { placeOrder, type PlaceOrderOptions } from '../../src/domain/orders/place-order.js'
import { registerTicketDownloads } from '../../src/domain/orders/register-ticket-downloads.js'
import { settingsOf } from '../../src/domain/sellers/seller-settings.js'
import { useTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertTestCustomer } from '../factories/orders.js'
import { createTestAffiliate, type TestSeller, useTwoSellers } from '../factories/sellers.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)

type Item = { inventory_id: string; quantity: number }

async function basket(seller: TestSeller, items: Item[], headers: Record<string, string> = {}) {
  const res = await ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: { ...seller.auth, ...headers }, payload: { items } })
  expect(res.statusCode).toBe(201)
  return res.json() as { id: string; items: { id: string }[] }
}

async function stock(seller: TestSeller, overrides: Parameters<typeof createTestInventory>[2] = {}) {
  const event = await createTestEvent(ctx.app, seller.seller.id)
  return createTestInventory(ctx.app, event, { capacity: 10, ...overrides })
}

const buyer = (seller: TestSeller = a) => insertTestCustomer(ctx.app, seller.seller.id)

const checkout = (seller: TestSeller, basketId: string, customerId: string, extra: Partial<PlaceOrderOptions> = {}) =>
  placeOrder(ctx.app.db, {
    codes: ctx.app.ticketCodes,
    sellerId: seller.seller.id,
    affiliate: null,
    basketId,
    customerId,
    settings: settingsOf(seller.seller),
    paymentMethod: 'pix',
    actor: { type: 'customer', id: customerId },
    ...extra,
  })

const inventoryRow = async (id: string) => (await ctx.app.db.select().from(inventories).where(eq(inventories.id, id)))[0]!
const couponRow = async (id: string) => (await ctx.app.db.select().from(coupons).where(eq(coupons.id, id)))[0]!

describe('placeOrder', () => {
  it('turns holds into sales and issues one unguessable ticket per unit', async () => {
    const x = await stock(a, { price: 5000 })
    const y = await stock(a, { price: 2500 })
    const customer = await buyer()
    const open = await basket(a, [
      { inventory_id: x.id, quantity: 2 },
      { inventory_id: y.id, quantity: 1 },
    ])
    const { body: order, replayed } = await checkout(a, open.id, customer, { paymentReference: 'psp-123' })
    expect(replayed).toBe(false)
    expect(order).toMatchObject({
      status: 'confirmed',
      customer_id: customer,
      affiliate_code: null,
      totals: { subtotal: 12500, discount: 0, interest: 0, total: 12500 },
      payment: { method: 'pix', installments: 1, installment_amount: 12500, reference: 'psp-123' },
    })
    expect(order.items.map((i) => [i.inventory_id, i.quantity, i.unit_price, i.total])).toEqual([
      [x.id, 2, 5000, 10000],
      [y.id, 1, 2500, 2500],
    ])
    expect(order.tickets.map((t) => t.inventory_id)).toEqual([x.id, x.id, y.id])
    for (const t of order.tickets) {
      expect(t.identifier).toMatch(/^[A-Z2-7]{26}$/)
      expect(t.first_access_at).toBeNull()
    }
    expect(new Set(order.tickets.map((t) => t.identifier)).size).toBe(3)

    expect((await inventoryRow(x.id)).sold).toBe(2)
    expect((await inventoryRow(y.id)).sold).toBe(1)
    expect([...(await heldQuantities(ctx.app.db, [x.id, y.id])).values()]).toEqual([0, 0])
    const [row] = await ctx.app.db.select().from(baskets).where(eq(baskets.id, open.id))
    expect(row).toMatchObject({ status: 'checked_out', customerId: customer })
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, order.id), eq(auditLog.action, 'stf.order.placed')))
    expect(audit).toBeDefined()
  })

  it('records the credit card plan: installments, installment amount and interest', async () => {
    const x = await stock(a, { price: 10000 })
    const open = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    const { body: order } = await checkout(a, open.id, await buyer(), { paymentMethod: 'credit_card', installments: 3 })
    expect(order.totals).toEqual({ subtotal: 10000, discount: 0, interest: 605, total: 10605 })
    expect(order.payment).toEqual({ method: 'credit_card', installments: 3, installment_amount: 3535, reference: null })
  })

  it('refuses an installment count the plans do not offer, and other payment methods, changing nothing', async () => {
    const x = await stock(a, { price: 1000 })
    const open = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    // 1000 in 3 would be under the 500 minimum.
    await expect(checkout(a, open.id, await buyer(), { paymentMethod: 'credit_card', installments: 3 })).rejects.toMatchObject({ code: 'validation_error' })
    await expect(checkout(a, open.id, await buyer(), { paymentMethod: 'pix', installments: 2 })).rejects.toMatchObject({ code: 'validation_error' })
    await expect(checkout(a, open.id, await buyer(), { paymentMethod: 'cash' })).rejects.toMatchObject({ code: 'unsupported_payment_method' })
    expect((await inventoryRow(x.id)).sold).toBe(0)
    expect((await checkout(a, open.id, await buyer(), { paymentMethod: 'credit_card', installments: 2 })).body.payment.installments).toBe(2)
  })

  it('answers basket_empty, basket_expired, and basket_checked_out naming the order once checked out', async () => {
    const x = await stock(a)
    const empty = await basket(a, [])
    await expect(checkout(a, empty.id, await buyer())).rejects.toMatchObject({ code: 'basket_empty', status: 422 })
    const lapsed = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    await ctx.app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, lapsed.id))
    await expect(checkout(a, lapsed.id, await buyer())).rejects.toMatchObject({ code: 'basket_expired', status: 410 })
    const done = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    const customer = await buyer()
    const { body: placed } = await checkout(a, done.id, customer)
    await expect(checkout(a, done.id, customer)).rejects.toMatchObject({ code: 'basket_checked_out', status: 409, details: { order_id: placed.id } })
    expect((await inventoryRow(x.id)).sold).toBe(1)
  })

  it("does not find another seller's basket, another affiliate's, or one linked to another customer", async () => {
    const x = await stock(a)
    const open = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    await expect(checkout(b, open.id, await buyer())).rejects.toMatchObject({ code: 'not_found' })
    const affiliate = await createTestAffiliate(ctx.app, a.seller.id, { code: 'CHKAFF' })
    const context = { id: affiliate.id, code: affiliate.code, name: affiliate.name, eventIds: null }
    await expect(checkout(a, open.id, await buyer(), { affiliate: context })).rejects.toMatchObject({ code: 'not_found' })
    const mine = await buyer()
    await ctx.app.db.update(baskets).set({ customerId: mine }).where(eq(baskets.id, open.id))
    await expect(checkout(a, open.id, await buyer())).rejects.toMatchObject({ code: 'not_found' })
    expect((await checkout(a, open.id, mine)).body.customer_id).toBe(mine)

    const underAffiliate = await basket(a, [{ inventory_id: x.id, quantity: 1 }], { 'x-affiliate-code': 'CHKAFF' })
    expect((await checkout(a, underAffiliate.id, await buyer(), { affiliate: context })).body.affiliate_code).toBe('CHKAFF')
  })

  it('sells at the price and discounts the basket shows, and redeems its coupons', async () => {
    const x = await stock(a, { price: 10000 })
    const y = await stock(a, { price: 3333 })
    const open = await basket(a, [
      { inventory_id: x.id, quantity: 1 },
      { inventory_id: y.id, quantity: 1 },
    ])
    const itemCoupon = await createTestCoupon(ctx.app, a.seller.id, { code: 'ORDITEM', value: 50 })
    const basketCoupon = await createTestCoupon(ctx.app, a.seller.id, { code: 'ORDBASKET', value: 10, maxUses: 10 })
    await ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${open.id}/coupon/${open.items[0]!.id}`, headers: a.auth, payload: { code: 'ORDITEM' } })
    const shown = (await ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${open.id}/coupon`, headers: a.auth, payload: { code: 'ORDBASKET' } })).json()
    const customer = await buyer()
    const { body: order } = await checkout(a, open.id, customer)
    expect(order.totals).toEqual({ subtotal: 13333, discount: 5833, interest: 0, total: 7500 })
    expect(order.totals.total).toBe(shown.totals.total)
    // The basket coupon's 833 is spread over the items by what the item coupon left (5000 : 3333): 500 and 333.
    expect(order.items[0]).toMatchObject({ discount: 5500, total: 4500, coupon: { code: 'ORDITEM', type: 'percent', value: 50 } })
    expect(order.items[1]).toMatchObject({ discount: 333, total: 3000, coupon: null })
    expect(order.items.map((item) => [item.discount, item.total])).toEqual(
      shown.items.map((item: { discount: number; total: number }) => [item.discount, item.total]),
    )
    expect((await couponRow(itemCoupon.id)).uses).toBe(1)
    expect((await couponRow(basketCoupon.id)).uses).toBe(1)
    const redemptions = await ctx.app.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, order.id))
    expect(redemptions.map((r) => r.customerId)).toEqual([customer, customer])
  })

  it('refuses a coupon at its usage limit with coupon_exhausted and sells nothing', async () => {
    const x = await stock(a)
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { code: 'LASTONE', maxUses: 1 })
    const first = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    const second = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    for (const open of [first, second]) {
      expect(
        (await ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${open.id}/coupon`, headers: a.auth, payload: { code: 'LASTONE' } })).statusCode,
      ).toBe(200)
    }
    await checkout(a, first.id, await buyer())
    await expect(checkout(a, second.id, await buyer())).rejects.toMatchObject({ code: 'coupon_exhausted', status: 422 })
    expect((await inventoryRow(x.id)).sold).toBe(1)
    expect((await couponRow(coupon.id)).uses).toBe(1)
    // Without the coupon the basket can be checked out.
    await ctx.app.inject({ method: 'DELETE', url: `/stf/v1/baskets/${second.id}/coupon`, headers: a.auth })
    expect((await checkout(a, second.id, await buyer())).body.totals.discount).toBe(0)
  })

  it('enforces max_uses_per_customer per customer', async () => {
    const x = await stock(a)
    await createTestCoupon(ctx.app, a.seller.id, { code: 'PERCUST', maxUsesPerCustomer: 1 })
    const customer = await buyer()
    const baskets3 = [
      await basket(a, [{ inventory_id: x.id, quantity: 1 }]),
      await basket(a, [{ inventory_id: x.id, quantity: 1 }]),
      await basket(a, [{ inventory_id: x.id, quantity: 1 }]),
    ]
    for (const open of baskets3) {
      await ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${open.id}/coupon`, headers: a.auth, payload: { code: 'PERCUST' } })
    }
    await checkout(a, baskets3[0]!.id, customer)
    await expect(checkout(a, baskets3[1]!.id, customer)).rejects.toMatchObject({ code: 'coupon_exhausted' })
    expect((await checkout(a, baskets3[2]!.id, await buyer())).body.totals.discount).toBeGreaterThan(0)
  })

  it('refuses a coupon that stopped being valid since it was applied', async () => {
    const x = await stock(a)
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { code: 'GOESOFF' })
    const open = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    await ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${open.id}/coupon`, headers: a.auth, payload: { code: 'GOESOFF' } })
    await ctx.app.db.update(coupons).set({ endsAt: sql`now() - interval '1 second'` }).where(eq(coupons.id, coupon.id))
    await expect(checkout(a, open.id, await buyer())).rejects.toMatchObject({ code: 'coupon_invalid' })
    expect((await inventoryRow(x.id)).sold).toBe(0)
  })

  it('never sells beyond capacity, even when a lapsed hold was taken meanwhile', async () => {
    const x = await stock(a, { capacity: 2 })
    const open = await basket(a, [{ inventory_id: x.id, quantity: 2 }])
    await ctx.app.db.update(inventories).set({ sold: 1 }).where(eq(inventories.id, x.id))
    await expect(checkout(a, open.id, await buyer())).rejects.toMatchObject({ code: 'insufficient_inventory' })
    expect((await inventoryRow(x.id)).sold).toBe(1)
  })

  it('replays a checkout with the same Idempotency-Key and refuses the key with another body', async () => {
    const x = await stock(a)
    const open = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    const customer = await buyer()
    const first = await checkout(a, open.id, customer, { idempotencyKey: 'pay-1' })
    const again = await checkout(a, open.id, customer, { idempotencyKey: 'pay-1' })
    expect(again).toEqual({ body: first.body, replayed: true })
    await expect(checkout(a, open.id, customer, { idempotencyKey: 'pay-1', paymentReference: 'other' })).rejects.toMatchObject({ code: 'idempotency_conflict' })
    expect(Number((await ctx.app.db.select({ n: count() }).from(orders).where(eq(orders.basketId, open.id)))[0]!.n)).toBe(1)
  })
})

describe('cancelOrder', () => {
  it('returns the tickets to availability, voids them and releases coupon uses; a second cancel changes nothing', async () => {
    const x = await stock(a, { capacity: 3 })
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { code: 'CANCELME', maxUses: 1, maxUsesPerCustomer: 1 })
    const open = await basket(a, [{ inventory_id: x.id, quantity: 3 }])
    await ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${open.id}/coupon`, headers: a.auth, payload: { code: 'CANCELME' } })
    const customer = await buyer()
    const { body: order } = await checkout(a, open.id, customer)
    expect((await inventoryRow(x.id)).sold).toBe(3)

    const staff = { type: 'staff' as const, id: randomUUID() }
    const { order: cancelled, changed } = await cancelOrder(ctx.app.db, { codes: ctx.app.ticketCodes, orderId: order.id, actor: staff })
    expect(changed).toBe(true)
    expect(cancelled.status).toBe('cancelled')
    expect((await inventoryRow(x.id)).sold).toBe(0)
    expect((await couponRow(coupon.id)).uses).toBe(0)
    const voided = await ctx.app.db.select().from(tickets).where(eq(tickets.orderId, order.id))
    expect(voided.every((t) => t.voidedAt instanceof Date)).toBe(true)

    const again = await cancelOrder(ctx.app.db, { codes: ctx.app.ticketCodes, orderId: order.id, actor: staff })
    expect(again.changed).toBe(false)
    expect((await inventoryRow(x.id)).sold).toBe(0)

    // The tickets and the coupon can be sold again, to the same customer.
    const next = await basket(a, [{ inventory_id: x.id, quantity: 3 }])
    await ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${next.id}/coupon`, headers: a.auth, payload: { code: 'CANCELME' } })
    expect((await checkout(a, next.id, customer)).body.totals.discount).toBeGreaterThan(0)
  })

  it("answers not_found for an unknown order or another seller's when scoped", async () => {
    const x = await stock(a)
    const open = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    const { body: order } = await checkout(a, open.id, await buyer())
    const staff = { type: 'staff' as const }
    await expect(cancelOrder(ctx.app.db, { codes: ctx.app.ticketCodes, orderId: randomUUID(), actor: staff })).rejects.toMatchObject({ code: 'not_found' })
    await expect(cancelOrder(ctx.app.db, { codes: ctx.app.ticketCodes, orderId: order.id, sellerId: b.seller.id, actor: staff })).rejects.toMatchObject({
      code: 'not_found',
    })
  })
})

describe('registerTicketDownloads', () => {
  it('counts known identifiers, reports first accesses once, lists unknown ones and keeps every call', async () => {
    const x = await stock(a)
    const open = await basket(a, [{ inventory_id: x.id, quantity: 3 }])
    const customer = await buyer()
    const { body: order } = await checkout(a, open.id, customer)
    const [t1, t2, t3] = order.tickets.map((t) => t.identifier)
    const register = (identifiers: string[], extra: { userId?: string; source?: string } = {}) =>
      registerTicketDownloads(ctx.app.db, { codes: ctx.app.ticketCodes, sellerId: a.seller.id, affiliate: null, orderId: order.id, identifiers, ...extra })

    expect(await register([t1!, t2!, 'NOPE'], { source: 'app', userId: customer })).toEqual({
      registered: 2,
      first_access: [t1, t2],
      unknown: ['NOPE'],
      voided: [],
    })
    expect(await register([t2!, t3!, t3!], { source: 'email' })).toEqual({ registered: 2, first_access: [t3], unknown: [], voided: [] })
    expect(await register([t1!])).toEqual({ registered: 1, first_access: [], unknown: [], voided: [] })

    const log = await ctx.app.db.select().from(ticketDownloads).where(eq(ticketDownloads.orderId, order.id))
    expect(log.map((l) => [l.source, l.userId])).toEqual(
      expect.arrayContaining([
        ['app', customer],
        ['email', null],
        [null, null],
      ]),
    )
    expect(log).toHaveLength(3)
  })

  it('counts a first access once under concurrent calls', async () => {
    const x = await stock(a)
    const open = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    const { body: order } = await checkout(a, open.id, await buyer())
    const identifier = order.tickets[0]!.identifier
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        registerTicketDownloads(ctx.app.db, {
          codes: ctx.app.ticketCodes,
          sellerId: a.seller.id,
          affiliate: null,
          orderId: order.id,
          identifiers: [identifier],
        }),
      ),
    )
    expect(answers.filter((r) => r.first_access.length === 1)).toHaveLength(1)
  })

  it("answers not_found for another seller's order and for a user other than the order's customer", async () => {
    const x = await stock(a)
    const open = await basket(a, [{ inventory_id: x.id, quantity: 1 }])
    const { body: order } = await checkout(a, open.id, await buyer())
    const identifiers = [order.tickets[0]!.identifier]
    await expect(
      registerTicketDownloads(ctx.app.db, { codes: ctx.app.ticketCodes, sellerId: b.seller.id, affiliate: null, orderId: order.id, identifiers }),
    ).rejects.toMatchObject({
      code: 'not_found',
    })
    await expect(
      registerTicketDownloads(ctx.app.db, {
        codes: ctx.app.ticketCodes,
        sellerId: a.seller.id,
        affiliate: null,
        orderId: order.id,
        identifiers,
        userId: randomUUID(),
      }),
    ).rejects.toMatchObject({ code: 'not_found' })
  })
})
