import { count, eq, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { baskets } from '../../src/domain/baskets/baskets.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { coupons } from '../../src/domain/coupons/coupons.table.js'
import { orders } from '../../src/domain/orders/orders.table.js'
import { useTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { createTestCustomer, type TestCustomer } from '../factories/customers.js'
import { createTestAffiliate, createTestSeller, type TestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { expectError } from '../support/customer-auth.js'
import { eventually } from '../support/smtp-sink.js'
import { asAdmin } from '../support/staff.js'

// Issue "Selling for real": the order is what the partner charged (expected_total, exact
// installment plans), a checked-out basket says so, and a basket tells the truth about its
// coupons, its items and how its discount is shared.

const ctx = useTestApp()
let a: TestSeller
let buyer: TestCustomer
let adm: AdmClient

beforeAll(async () => {
  a = await createTestSeller(ctx.app)
  buyer = await createTestCustomer(ctx.app, a)
  adm = admClient(ctx.app, (await asAdmin(ctx.app)).auth)
})

type Headers = Record<string, string>
type Item = { inventory_id: string; quantity: number }

async function stock(overrides: Parameters<typeof createTestInventory>[2] = {}) {
  const event = await createTestEvent(ctx.app, a.seller.id)
  return createTestInventory(ctx.app, event, { capacity: 50, ...overrides })
}

const open = async (items: Item[], headers: Headers = a.auth) => {
  const res = await ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}
const read = (id: string, headers: Headers = a.auth) => ctx.app.inject({ method: 'GET', url: `/stf/v1/baskets/${id}`, headers })
const checkout = (id: string, payload: object = { payment_method: 'pix' }, headers: Headers = buyer.headers) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${id}/checkout`, headers, payload })
const patch = (id: string, items: Item[]) => ctx.app.inject({ method: 'PATCH', url: `/stf/v1/baskets/${id}/items`, headers: a.auth, payload: { items } })
const applyCoupon = (id: string, code: string, itemId?: string) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${id}/coupon${itemId ? `/${itemId}` : ''}`, headers: a.auth, payload: { code } })
const removeCoupon = (id: string, itemId?: string) =>
  ctx.app.inject({ method: 'DELETE', url: `/stf/v1/baskets/${id}/coupon${itemId ? `/${itemId}` : ''}`, headers: a.auth })
const installments = (id: string, paymentMethod = 'credit_card') =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${id}/installments`, headers: a.auth, payload: { payment_method: paymentMethod } })

const soldOf = async (inventoryId: string) =>
  (await ctx.app.db.select({ sold: inventories.sold }).from(inventories).where(eq(inventories.id, inventoryId)))[0]!.sold
const ordersOf = async (basketId: string) => Number((await ctx.app.db.select({ n: count() }).from(orders).where(eq(orders.basketId, basketId)))[0]!.n)
const sumOf = (items: { total: number }[]) => items.reduce((sum, item) => sum + item.total, 0)

describe('checkout with expected_total: the order is what the partner charged', () => {
  it('refuses a price raised after the quote with 409 price_changed, sells nothing and keeps the hold; the new total then sells', async () => {
    const inventory = await stock({ price: 5000 })
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }])
    expect(basket.totals.total).toBe(5000)
    // The back office raises the price after the partner captured 5000.
    expect((await adm.put(`/inventories/${inventory.id}`, { price: 6500 })).statusCode).toBe(200)
    const before = (await read(basket.id)).json()

    const refused = await checkout(basket.id, { payment_method: 'pix', payment_reference: 'captured-5000', expected_total: 5000 })
    expectError(refused, 409, 'price_changed')
    const shown = (await read(basket.id)).json()
    expect(refused.json().details).toEqual({ expected_total: 5000, total: 6500, basket: shown })
    expect(shown).toEqual(before)
    expect(shown).toMatchObject({ status: 'open', order_id: null, expires_at: basket.expires_at, totals: { total: 6500 } })
    expect(await soldOf(inventory.id)).toBe(0)
    expect(await ordersOf(basket.id)).toBe(0)

    const sold = await checkout(basket.id, { payment_method: 'pix', payment_reference: 'captured-6500', expected_total: 6500 })
    expect(sold.statusCode, sold.body).toBe(201)
    expect(sold.json()).toMatchObject({ totals: { total: 6500 }, payment: { reference: 'captured-6500' } })
    expect(await soldOf(inventory.id)).toBe(1)
  })

  it('without expected_total sells at the total computed at checkout, as before', async () => {
    const inventory = await stock({ price: 5000 })
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }])
    await adm.put(`/inventories/${inventory.id}`, { price: 6500 })
    const sold = await checkout(basket.id, { payment_method: 'pix' })
    expect(sold.statusCode).toBe(201)
    expect(sold.json().totals.total).toBe(6500)
  })

  it('compares the plan total, interest included, when paid in installments', async () => {
    const inventory = await stock({ price: 10000 })
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }])
    // 10000 in 3 at 2.99 %: 3 × 3535 = 10605.
    const refused = await checkout(basket.id, { payment_method: 'credit_card', installments: 3, expected_total: 10000 })
    expectError(refused, 409, 'price_changed')
    expect(refused.json().details).toMatchObject({ expected_total: 10000, total: 10605, basket: { totals: { total: 10000 } } })
    const sold = await checkout(basket.id, { payment_method: 'credit_card', installments: 3, expected_total: 10605 })
    expect(sold.statusCode).toBe(201)
    expect(sold.json()).toMatchObject({ totals: { interest: 605, total: 10605 }, payment: { installments: 3, installment_amount: 3535 } })
  })

  it('refuses a total moved by a coupon changed in the back office, priced under the coupon locks', async () => {
    const inventory = await stock({ price: 5000 })
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { type: 'fixed', value: 500 })
    const basket = await open([{ inventory_id: inventory.id, quantity: 2 }])
    expect((await applyCoupon(basket.id, coupon.code)).json().totals.total).toBe(9500)
    expect((await adm.put(`/coupons/${coupon.id}`, { value: 300 })).statusCode).toBe(200)
    const refused = await checkout(basket.id, { payment_method: 'pix', expected_total: 9500 })
    expectError(refused, 409, 'price_changed')
    expect(refused.json().details).toMatchObject({ expected_total: 9500, total: 9700, basket: { coupon: { code: coupon.code, value: 300, applicable: true } } })
    expect((await ctx.app.db.select({ uses: coupons.uses }).from(coupons).where(eq(coupons.id, coupon.id)))[0]!.uses).toBe(0)
    expect((await checkout(basket.id, { payment_method: 'pix', expected_total: 9700 })).statusCode).toBe(201)
  })

  it('validates expected_total: a whole number of centavos, not negative', async () => {
    const inventory = await stock()
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }])
    for (const expected of [-1, 10.5, '5000', null]) {
      const res = await checkout(basket.id, { payment_method: 'pix', expected_total: expected })
      expectError(res, 400, 'validation_error')
      expect(res.json().details).toEqual([expect.objectContaining({ path: 'expected_total' })])
    }
    expect(await soldOf(inventory.id)).toBe(0)
  })

  it('keeps Idempotency-Key exact: a refusal leaves the key free, a replay answers the order, another expected_total conflicts', async () => {
    const inventory = await stock({ price: 5000 })
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }])
    const headers = { ...buyer.headers, 'idempotency-key': `charge-${basket.id}` }
    expectError(await checkout(basket.id, { payment_method: 'pix', expected_total: 4000 }, headers), 409, 'price_changed')
    const first = await checkout(basket.id, { payment_method: 'pix', expected_total: 5000 }, headers)
    expect(first.statusCode).toBe(201)
    const replay = await checkout(basket.id, { payment_method: 'pix', expected_total: 5000 }, headers)
    expect(replay.statusCode).toBe(201)
    expect(replay.body).toBe(first.body)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expectError(await checkout(basket.id, { payment_method: 'pix', expected_total: 5001 }, headers), 409, 'idempotency_conflict')
    expectError(await checkout(basket.id, { payment_method: 'pix' }, headers), 409, 'idempotency_conflict')
  })
})

describe('installment plans state exactly what is charged', () => {
  it('gives each plan amount and last_amount adding up to its total, and checkout records that total', async () => {
    const seller = await createTestSeller(ctx.app, { settings: { interest_free_installments: 3 } })
    const customer = await createTestCustomer(ctx.app, seller)
    const event = await createTestEvent(ctx.app, seller.seller.id)
    const inventory = await createTestInventory(ctx.app, event, { price: 10001 })
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }], seller.auth)
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${basket.id}/installments`,
      headers: seller.auth,
      payload: { payment_method: 'credit_card' },
    })
    const plans = res.json().plans as { installments: number; amount: number; last_amount: number; total: number }[]
    // Interest-free 3x of 10001 used to read 3 × 3334 = 10002.
    expect(plans[2]).toEqual({ installments: 3, amount: 3334, last_amount: 3333, total: 10001, interest: 0, monthly_rate: 0 })
    for (const plan of plans) expect(plan.amount * (plan.installments - 1) + plan.last_amount).toBe(plan.total)
    const sold = await checkout(basket.id, { payment_method: 'credit_card', installments: 3, expected_total: 10001 }, customer.headers)
    expect(sold.statusCode).toBe(201)
    expect(sold.json()).toMatchObject({ totals: { total: 10001, interest: 0 }, payment: { installments: 3, installment_amount: 3334 } })
  })
})

describe('a checked-out basket says so', () => {
  it('reads checked_out with its order_id, as it was sold', async () => {
    const inventory = await stock({ price: 4000 })
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { type: 'percent', value: 10, maxUses: 1 })
    const basket = await open([{ inventory_id: inventory.id, quantity: 2 }])
    await applyCoupon(basket.id, coupon.code)
    const order = (await checkout(basket.id)).json()
    // Afterwards the price moves and the coupon is used up (by this very order): the basket still reads as sold.
    await adm.put(`/inventories/${inventory.id}`, { price: 9999 })
    const res = await read(basket.id)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      id: basket.id,
      status: 'checked_out',
      order_id: order.id,
      customer_id: buyer.customer.id,
      coupon: { code: coupon.code, type: 'percent', value: 10, applicable: true, reason: null },
      totals: { subtotal: 8000, discount: 800, total: 7200 },
      items: [{ id: basket.items[0].id, inventory_id: inventory.id, quantity: 2, unit_price: 4000, discount: 800, total: 7200, coupon: null, available: true }],
    })
    expect(res.json().totals.total).toBe(order.totals.total)
  })

  it('answers checkout, PATCH, coupon and installment calls with 409 basket_checked_out naming the order', async () => {
    const inventory = await stock()
    await createTestCoupon(ctx.app, a.seller.id, { code: 'AFTERSALE' })
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }])
    const order = (await checkout(basket.id)).json()
    const itemId = basket.items[0].id
    for (const res of [
      await checkout(basket.id),
      await checkout(basket.id, { payment_method: 'pix', expected_total: 5000 }),
      await patch(basket.id, [{ inventory_id: inventory.id, quantity: 2 }]),
      await applyCoupon(basket.id, 'AFTERSALE'),
      await applyCoupon(basket.id, 'AFTERSALE', itemId),
      await removeCoupon(basket.id),
      await removeCoupon(basket.id, itemId),
      await installments(basket.id),
    ]) {
      expectError(res, 409, 'basket_checked_out')
      expect(res.json().details).toEqual({ order_id: order.id })
    }
    expect(await soldOf(inventory.id)).toBe(1)
  })

  it('still answers 410 basket_expired when the hold really lapsed', async () => {
    const inventory = await stock()
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }])
    await ctx.app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, basket.id))
    for (const res of [await checkout(basket.id), await patch(basket.id, [{ inventory_id: inventory.id, quantity: 2 }]), await removeCoupon(basket.id)]) {
      expectError(res, 410, 'basket_expired')
    }
    expect((await read(basket.id)).json()).toMatchObject({ status: 'expired', order_id: null })
  })

  it('replays the original order for the same Idempotency-Key after the basket was checked out', async () => {
    const inventory = await stock()
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }])
    const headers = { ...buyer.headers, 'idempotency-key': `replay-${basket.id}` }
    const first = await checkout(basket.id, { payment_method: 'pix' }, headers)
    expect(first.statusCode).toBe(201)
    const replay = await checkout(basket.id, { payment_method: 'pix' }, headers)
    expect(replay.statusCode).toBe(201)
    expect(replay.body).toBe(first.body)
    const other = await checkout(basket.id, { payment_method: 'pix' }, { ...buyer.headers, 'idempotency-key': `other-${basket.id}` })
    expectError(other, 409, 'basket_checked_out')
    expect(other.json().details).toEqual({ order_id: first.json().id })
  })

  it('places exactly one order for two checkouts of the same basket at once; the other answers 409 basket_checked_out', async () => {
    const inventory = await stock({ capacity: 100 })
    for (let round = 0; round < 5; round++) {
      const basket = await open([{ inventory_id: inventory.id, quantity: 2 }])
      const keyed = round % 2 === 1
      const answers = await Promise.all([
        checkout(basket.id, { payment_method: 'pix' }, keyed ? { ...buyer.headers, 'idempotency-key': `race-a-${basket.id}` } : buyer.headers),
        checkout(basket.id, { payment_method: 'pix' }, keyed ? { ...buyer.headers, 'idempotency-key': `race-b-${basket.id}` } : buyer.headers),
      ])
      const placed = answers.filter((res) => res.statusCode === 201)
      const refused = answers.filter((res) => res.statusCode !== 201)
      expect(placed, answers.map((res) => res.body).join('\n')).toHaveLength(1)
      expectError(refused[0]!, 409, 'basket_checked_out')
      expect(refused[0]!.json().details).toEqual({ order_id: placed[0]!.json().id })
      expect(await ordersOf(basket.id)).toBe(1)
    }
    expect(await soldOf(inventory.id)).toBe(10)
  })
})

describe('a basket that tells the truth', () => {
  it('shows a deactivated basket coupon as not applicable, counting 0, and checkout refuses with that reason', async () => {
    const inventory = await stock({ price: 5000 })
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { type: 'fixed', value: 1000 })
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }])
    expect((await applyCoupon(basket.id, coupon.code)).json()).toMatchObject({
      coupon: { code: coupon.code, applicable: true, reason: null },
      totals: { discount: 1000, total: 4000 },
    })
    await adm.put(`/coupons/${coupon.id}`, { active: false })
    const shown = (await read(basket.id)).json()
    expect(shown).toMatchObject({
      coupon: { code: coupon.code, type: 'fixed', value: 1000, applicable: false, reason: 'coupon_invalid' },
      totals: { subtotal: 5000, discount: 0, total: 5000 },
      items: [{ discount: 0, total: 5000 }],
    })
    expectError(await checkout(basket.id), 422, shown.coupon.reason)
    expect(await soldOf(inventory.id)).toBe(0)
  })

  it('shows an expired coupon as coupon_invalid and one at its usage limit as coupon_exhausted, as checkout refuses them', async () => {
    const inventory = await stock({ price: 5000 })
    const expiring = await createTestCoupon(ctx.app, a.seller.id, { value: 10 })
    const lastUse = await createTestCoupon(ctx.app, a.seller.id, { value: 20, maxUses: 1 })
    const first = await open([{ inventory_id: inventory.id, quantity: 1 }])
    const second = await open([{ inventory_id: inventory.id, quantity: 1 }])
    await applyCoupon(first.id, lastUse.code)
    await applyCoupon(second.id, lastUse.code)
    await applyCoupon(second.id, expiring.code, second.items[0].id)
    expect((await checkout(first.id)).statusCode).toBe(201)
    await ctx.app.db.update(coupons).set({ endsAt: sql`now() - interval '1 second'` }).where(eq(coupons.id, expiring.id))

    const shown = (await read(second.id)).json()
    expect(shown.coupon).toEqual({ code: lastUse.code, type: 'percent', value: 20, applicable: false, reason: 'coupon_exhausted' })
    expect(shown.items[0]).toMatchObject({ coupon: { code: expiring.code, applicable: false, reason: 'coupon_invalid' }, discount: 0, total: 5000 })
    expect(shown.totals).toEqual({ subtotal: 5000, discount: 0, total: 5000 })
    expectError(await checkout(second.id), 422, 'coupon_exhausted')
    // Without the basket coupon, the item coupon's reason is the refusal.
    await removeCoupon(second.id)
    expectError(await checkout(second.id), 422, 'coupon_invalid')
    await removeCoupon(second.id, second.items[0].id)
    expect((await checkout(second.id)).statusCode).toBe(201)
  })

  it('marks an item whose event stopped selling as unavailable, the others as available, and checkout refuses it', async () => {
    const kept = await stock()
    const event = await createTestEvent(ctx.app, a.seller.id)
    const dropped = await createTestInventory(ctx.app, event)
    const basket = await open([
      { inventory_id: kept.id, quantity: 1 },
      { inventory_id: dropped.id, quantity: 1 },
    ])
    expect(basket.items.map((item: { available: boolean }) => item.available)).toEqual([true, true])
    expect((await adm.put(`/events/${event.id}`, { status: 'cancelled' })).statusCode).toBe(200)
    const shown = (await read(basket.id)).json()
    expect(shown.items.map((item: { inventory_id: string; available: boolean }) => [item.inventory_id, item.available])).toEqual([
      [kept.id, true],
      [dropped.id, false],
    ])
    const refused = await checkout(basket.id)
    expectError(refused, 409, 'inventory_unavailable')
    expect(refused.json().details).toEqual({ inventory_id: dropped.id })
    // Removing it leaves a basket that can be bought.
    const changed = await patch(basket.id, [{ inventory_id: dropped.id, quantity: 0 }])
    expect(changed.json().items).toEqual([expect.objectContaining({ inventory_id: kept.id, available: true })])
    expect((await checkout(basket.id)).statusCode).toBe(201)
  })

  it("marks an item unavailable once it is dated before the seller's today", async () => {
    const inventory = await stock()
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }])
    expect((await adm.put(`/inventories/${inventory.id}`, { date: dayFromToday(-2) })).statusCode).toBe(200)
    expect((await read(basket.id)).json().items[0]).toMatchObject({ inventory_id: inventory.id, available: false })
    expectError(await checkout(basket.id), 409, 'inventory_unavailable')
  })

  it('marks an item unavailable once its tickets are gone, e.g. taken by another basket after the hold lapsed', async () => {
    const inventory = await stock({ capacity: 3 })
    const lapsed = await open([{ inventory_id: inventory.id, quantity: 2 }])
    await ctx.app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, lapsed.id))
    expect((await read(lapsed.id)).json()).toMatchObject({ status: 'expired', items: [{ available: true }] })
    // The lapse was written behind the app's back: its memory of the 1 ticket left goes once the
    // database's notice of the freed tickets arrives (a hold lapsing with time needs no notice).
    await eventually(() => ctx.app.availability.recall(a.seller.id, [inventory.id]) === undefined)
    await open([{ inventory_id: inventory.id, quantity: 2 }])
    expect((await read(lapsed.id)).json()).toMatchObject({ status: 'expired', items: [{ available: false }] })
  })

  it("judges availability for the basket's affiliate: an event the affiliate may no longer sell is unavailable", async () => {
    const inventory = await stock()
    const other = await createTestEvent(ctx.app, a.seller.id)
    const affiliate = await createTestAffiliate(ctx.app, a.seller.id, { eventIds: [inventory.eventId] })
    const headers = { ...a.auth, 'x-affiliate-code': affiliate.code }
    const basket = await open([{ inventory_id: inventory.id, quantity: 1 }], headers)
    expect((await read(basket.id, headers)).json().items[0].available).toBe(true)
    expect((await adm.put(`/affiliates/${affiliate.id}`, { event_ids: [other.id] })).statusCode).toBe(200)
    expect((await read(basket.id, headers)).json().items[0].available).toBe(false)
  })

  it("spreads a basket coupon over the items it covers so that the items' totals add up, in the basket and in the order", async () => {
    const x = await stock({ price: 3333 })
    const y = await stock({ price: 3333 })
    const z = await stock({ price: 3334 })
    const uncovered = await stock({ price: 7000 })
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { type: 'fixed', value: 1000, eventIds: [x.eventId, y.eventId, z.eventId] })
    const basket = await open([x, y, z, uncovered].map((inventory) => ({ inventory_id: inventory.id, quantity: 1 })))
    const shown = (await applyCoupon(basket.id, coupon.code)).json()
    // 1000 over 3333 : 3333 : 3334 is 333.3, 333.3, 333.4: 333, 333, 334; the uncovered item gets nothing.
    expect(shown.items.map((item: { discount: number; total: number }) => [item.discount, item.total])).toEqual([
      [333, 3000],
      [333, 3000],
      [334, 3000],
      [0, 7000],
    ])
    expect(shown.totals).toEqual({ subtotal: 17000, discount: 1000, total: 16000 })
    expect(sumOf(shown.items)).toBe(shown.totals.total)
    expect((await read(basket.id)).json()).toEqual(shown)

    const order = (await checkout(basket.id, { payment_method: 'pix', expected_total: 16000 })).json()
    expect(order.items.map((item: { discount: number; total: number }) => [item.discount, item.total])).toEqual([
      [333, 3000],
      [333, 3000],
      [334, 3000],
      [0, 7000],
    ])
    expect(sumOf(order.items)).toBe(order.totals.total - order.totals.interest)
  })

  it('adds up with item coupons and a percent basket coupon too', async () => {
    const x = await stock({ price: 10000 })
    const y = await stock({ price: 3333 })
    const half = await createTestCoupon(ctx.app, a.seller.id, { value: 50 })
    const tenth = await createTestCoupon(ctx.app, a.seller.id, { value: 10 })
    const basket = await open([
      { inventory_id: x.id, quantity: 1 },
      { inventory_id: y.id, quantity: 3 },
    ])
    await applyCoupon(basket.id, half.code, basket.items[0].id)
    const shown = (await applyCoupon(basket.id, tenth.code)).json()
    // Item: 5000 off x. Basket: 10 % of (5000 + 9999) = 1499, spread 5000 : 9999 → 499.8, 999.1 → 500, 999.
    expect(shown.items.map((item: { discount: number; total: number }) => [item.discount, item.total])).toEqual([
      [5500, 4500],
      [999, 9000],
    ])
    expect(shown.totals).toEqual({ subtotal: 19999, discount: 6499, total: 13500 })
    const order = (await checkout(basket.id)).json()
    expect(order.items.map((item: { total: number }) => item.total)).toEqual([4500, 9000])
    expect(order.totals.total).toBe(13500)
  })
})
