import { eq, sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { baskets } from '../../src/domain/baskets/baskets.table.js'
import { coupons } from '../../src/domain/coupons/coupons.table.js'
import { useTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { useTwoSellers } from '../factories/sellers.js'
import { expectError } from '../support/customer-auth.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)

type Item = { inventory_id: string; quantity: number }

async function basketWith(lines: { price: number; quantity: number; eventId?: string }[], seller = a) {
  const inventoryIds: string[] = []
  const eventIds: string[] = []
  for (const line of lines) {
    const event = line.eventId ? { id: line.eventId, sellerId: seller.seller.id } : await createTestEvent(ctx.app, seller.seller.id)
    const inventory = await createTestInventory(ctx.app, event, { price: line.price })
    inventoryIds.push(inventory.id)
    eventIds.push(event.id)
  }
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/stf/v1/baskets',
    headers: seller.auth,
    payload: { items: lines.map((l, n) => ({ inventory_id: inventoryIds[n], quantity: l.quantity })) },
  })
  expect(res.statusCode).toBe(201)
  return { basket: res.json(), inventoryIds, eventIds }
}

const applyToBasket = (basketId: string, code: string, headers = a.auth) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/coupon`, headers, payload: { code } })
const applyToItem = (basketId: string, itemId: string, code: string, headers = a.auth) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/coupon/${itemId}`, headers, payload: { code } })

describe('POST /stf/v1/baskets/{id}/coupon', () => {
  it('discounts the basket, percent rounded down to the centavo, and shows the coupon', async () => {
    const { basket } = await basketWith([{ price: 3333, quantity: 1 }])
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { code: 'TENOFF', type: 'percent', value: 10 })
    const res = await applyToBasket(basket.id, 'TENOFF')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      coupon: { code: 'TENOFF', type: 'percent', value: 10, applicable: true, reason: null },
      totals: { subtotal: 3333, discount: 333, total: 3000 },
    })
    // The basket discount is the item's too: the items add up to the total.
    expect(res.json().items[0]).toMatchObject({ discount: 333, total: 3000, coupon: null })
    expect(coupon.id).toBeTruthy()
  })

  it('matches codes case-insensitively and ignores surrounding spaces', async () => {
    const { basket } = await basketWith([{ price: 1000, quantity: 1 }])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'MixedCase', type: 'fixed', value: 100 })
    const res = await applyToBasket(basket.id, '  mixedcase ')
    expect(res.statusCode).toBe(200)
    expect(res.json().coupon.code).toBe('MixedCase')
  })

  it('never discounts more than the basket is worth', async () => {
    const { basket } = await basketWith([{ price: 5000, quantity: 1 }])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'BIGFIXED', type: 'fixed', value: 10000 })
    expect((await applyToBasket(basket.id, 'BIGFIXED')).json().totals).toEqual({ subtotal: 5000, discount: 5000, total: 0 })
  })

  it('replaces the previous basket coupon', async () => {
    const { basket } = await basketWith([{ price: 10000, quantity: 1 }])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'FIRST', type: 'percent', value: 50 })
    await createTestCoupon(ctx.app, a.seller.id, { code: 'SECOND', type: 'fixed', value: 700 })
    await applyToBasket(basket.id, 'FIRST')
    const res = await applyToBasket(basket.id, 'SECOND')
    expect(res.json()).toMatchObject({ coupon: { code: 'SECOND' }, totals: { discount: 700, total: 9300 } })
  })

  it('discounts only the lines of the events or inventories the coupon names', async () => {
    const { basket, eventIds, inventoryIds } = await basketWith([
      { price: 10000, quantity: 1 },
      { price: 2000, quantity: 2 },
    ])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'EVENT2', value: 25, eventIds: [eventIds[1]!] })
    expect((await applyToBasket(basket.id, 'EVENT2')).json().totals).toEqual({ subtotal: 14000, discount: 1000, total: 13000 })
    await createTestCoupon(ctx.app, a.seller.id, { code: 'INV1', type: 'fixed', value: 20000, inventoryIds: [inventoryIds[0]!] })
    expect((await applyToBasket(basket.id, 'INV1')).json().totals).toEqual({ subtotal: 14000, discount: 10000, total: 4000 })
  })

  it('answers coupon_not_applicable when the coupon covers nothing in the basket or its minimum is not met', async () => {
    const { basket } = await basketWith([{ price: 2500, quantity: 2 }])
    const elsewhere = await createTestEvent(ctx.app, a.seller.id)
    await createTestCoupon(ctx.app, a.seller.id, { code: 'OTHEREVENT', eventIds: [elsewhere.id] })
    await createTestCoupon(ctx.app, a.seller.id, { code: 'MIN5001', minSubtotal: 5001 })
    await createTestCoupon(ctx.app, a.seller.id, { code: 'MIN5000', minSubtotal: 5000 })
    expectError(await applyToBasket(basket.id, 'OTHEREVENT'), 422, 'coupon_not_applicable')
    expectError(await applyToBasket(basket.id, 'MIN5001'), 422, 'coupon_not_applicable')
    expect((await applyToBasket(basket.id, 'MIN5000')).statusCode).toBe(200)
    const empty = (await ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: a.auth, payload: { items: [] } })).json()
    expectError(await applyToBasket(empty.id, 'MIN5000'), 422, 'coupon_not_applicable')
  })

  it("answers coupon_invalid for an unknown, inactive, not yet valid, expired or another seller's coupon", async () => {
    const { basket } = await basketWith([{ price: 5000, quantity: 1 }])
    const hour = 3_600_000
    await createTestCoupon(ctx.app, a.seller.id, { code: 'SLEEPING', active: false })
    await createTestCoupon(ctx.app, a.seller.id, { code: 'LATER', startsAt: new Date(Date.now() + hour) })
    await createTestCoupon(ctx.app, a.seller.id, { code: 'GONE', endsAt: new Date(Date.now() - hour) })
    await createTestCoupon(ctx.app, b.seller.id, { code: 'BSCODE' })
    await createTestCoupon(ctx.app, a.seller.id, { code: 'WINDOW', startsAt: new Date(Date.now() - hour), endsAt: new Date(Date.now() + hour) })
    for (const code of ['NOSUCH', 'SLEEPING', 'LATER', 'GONE', 'BSCODE']) expectError(await applyToBasket(basket.id, code), 422, 'coupon_invalid')
    expect((await applyToBasket(basket.id, 'WINDOW')).statusCode).toBe(200)
  })

  it('answers coupon_exhausted once the coupon reached max_uses', async () => {
    const { basket } = await basketWith([{ price: 5000, quantity: 1 }])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'USEDUP', maxUses: 2, uses: 2 })
    await createTestCoupon(ctx.app, a.seller.id, { code: 'ONELEFT', maxUses: 2, uses: 1 })
    expectError(await applyToBasket(basket.id, 'USEDUP'), 422, 'coupon_exhausted')
    expect((await applyToBasket(basket.id, 'ONELEFT')).statusCode).toBe(200)
  })

  it('keeps a coupon that stopped applying after a change, discounting nothing', async () => {
    const { basket, inventoryIds } = await basketWith([{ price: 2500, quantity: 2 }])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'MIN50', type: 'fixed', value: 1000, minSubtotal: 5000 })
    expect((await applyToBasket(basket.id, 'MIN50')).json().totals.discount).toBe(1000)
    const changed = await ctx.app.inject({
      method: 'PATCH',
      url: `/stf/v1/baskets/${basket.id}/items`,
      headers: a.auth,
      payload: { items: [{ inventory_id: inventoryIds[0]!, quantity: 1 } satisfies Item] },
    })
    expect(changed.json()).toMatchObject({
      coupon: { code: 'MIN50', applicable: false, reason: 'coupon_not_applicable' },
      totals: { subtotal: 2500, discount: 0, total: 2500 },
    })
  })

  it('renews the hold', async () => {
    const { basket } = await basketWith([{ price: 5000, quantity: 1 }])
    await ctx.app.db.update(baskets).set({ expiresAt: sql`now() + interval '5 seconds'` }).where(eq(baskets.id, basket.id))
    await createTestCoupon(ctx.app, a.seller.id, { code: 'RENEW' })
    const res = await applyToBasket(basket.id, 'RENEW')
    expect(Date.parse(res.json().expires_at) - Date.now()).toBeGreaterThan(800_000)
  })

  it("answers 410 on an expired basket, 404 on another seller's and 400 for an empty code", async () => {
    const { basket } = await basketWith([{ price: 5000, quantity: 1 }])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'ANY' })
    expectError(await applyToBasket(basket.id, 'ANY', b.auth), 404, 'not_found')
    expectError(await applyToBasket(basket.id, ''), 400, 'validation_error')
    await ctx.app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, basket.id))
    expectError(await applyToBasket(basket.id, 'ANY'), 410, 'basket_expired')
  })

  it('removes the basket coupon with DELETE', async () => {
    const { basket } = await basketWith([{ price: 5000, quantity: 1 }])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'REMOVEME' })
    await applyToBasket(basket.id, 'REMOVEME')
    const res = await ctx.app.inject({ method: 'DELETE', url: `/stf/v1/baskets/${basket.id}/coupon`, headers: a.auth })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ coupon: null, totals: { discount: 0, total: 5000 } })
  })
})

describe('POST /stf/v1/baskets/{id}/coupon/{item_id}', () => {
  it('discounts that item only', async () => {
    const { basket } = await basketWith([
      { price: 5000, quantity: 2 },
      { price: 5000, quantity: 1 },
    ])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'ITEM15', type: 'fixed', value: 1500 })
    const res = await applyToItem(basket.id, basket.items[0].id, 'item15')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.items[0]).toMatchObject({ discount: 1500, total: 8500, coupon: { code: 'ITEM15', type: 'fixed', value: 1500 } })
    expect(body.items[1]).toMatchObject({ discount: 0, total: 5000, coupon: null })
    expect(body).toMatchObject({ coupon: null, totals: { subtotal: 15000, discount: 1500, total: 13500 } })
  })

  it('caps an item discount at the item, and replaces the item coupon', async () => {
    const { basket } = await basketWith([{ price: 1000, quantity: 1 }])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'HUGE', type: 'fixed', value: 99999 })
    await createTestCoupon(ctx.app, a.seller.id, { code: 'HALF', type: 'percent', value: 50 })
    expect((await applyToItem(basket.id, basket.items[0].id, 'HUGE')).json().items[0]).toMatchObject({ discount: 1000, total: 0 })
    expect((await applyToItem(basket.id, basket.items[0].id, 'HALF')).json().items[0]).toMatchObject({ discount: 500, coupon: { code: 'HALF' } })
  })

  it('answers coupon_not_applicable for an item the coupon does not cover', async () => {
    const { basket, inventoryIds } = await basketWith([
      { price: 1000, quantity: 1 },
      { price: 1000, quantity: 1 },
    ])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'ONLYSECOND', inventoryIds: [inventoryIds[1]!] })
    expectError(await applyToItem(basket.id, basket.items[0].id, 'ONLYSECOND'), 422, 'coupon_not_applicable')
    expect((await applyToItem(basket.id, basket.items[1].id, 'ONLYSECOND')).statusCode).toBe(200)
  })

  it('lets one coupon discount one place in a basket', async () => {
    const { basket } = await basketWith([
      { price: 1000, quantity: 1 },
      { price: 1000, quantity: 1 },
    ])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'ONCE' })
    expect((await applyToItem(basket.id, basket.items[0].id, 'ONCE')).statusCode).toBe(200)
    expectError(await applyToItem(basket.id, basket.items[1].id, 'ONCE'), 422, 'coupon_not_applicable')
    expectError(await applyToBasket(basket.id, 'ONCE'), 422, 'coupon_not_applicable')
    // Re-applying to the same item is fine.
    expect((await applyToItem(basket.id, basket.items[0].id, 'ONCE')).statusCode).toBe(200)
  })

  it('applies the basket coupon to what the item coupons left', async () => {
    const { basket } = await basketWith([
      { price: 10000, quantity: 1 },
      { price: 3333, quantity: 1 },
    ])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'ITEMHALF', value: 50 })
    await createTestCoupon(ctx.app, a.seller.id, { code: 'BASKET10', value: 10 })
    await applyToItem(basket.id, basket.items[0].id, 'ITEMHALF')
    const res = await applyToBasket(basket.id, 'BASKET10')
    expect(res.json().totals).toEqual({ subtotal: 13333, discount: 5833, total: 7500 })
  })

  it('answers 404 for an item of another basket, and removes an item coupon with DELETE', async () => {
    const first = await basketWith([{ price: 1000, quantity: 1 }])
    const second = await basketWith([{ price: 1000, quantity: 1 }])
    await createTestCoupon(ctx.app, a.seller.id, { code: 'ITEMX' })
    expectError(await applyToItem(first.basket.id, second.basket.items[0].id, 'ITEMX'), 404, 'not_found')
    await applyToItem(first.basket.id, first.basket.items[0].id, 'ITEMX')
    const res = await ctx.app.inject({ method: 'DELETE', url: `/stf/v1/baskets/${first.basket.id}/coupon/${first.basket.items[0].id}`, headers: a.auth })
    expect(res.statusCode).toBe(200)
    expect(res.json().items[0]).toMatchObject({ coupon: null, discount: 0 })
    const missing = await ctx.app.inject({ method: 'DELETE', url: `/stf/v1/baskets/${first.basket.id}/coupon/${second.basket.items[0].id}`, headers: a.auth })
    expectError(missing, 404, 'not_found')
  })

  it('shows a coupon deactivated after it was applied as attached but discounting nothing', async () => {
    const { basket } = await basketWith([{ price: 1000, quantity: 1 }])
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { code: 'LATEROFF' })
    await applyToItem(basket.id, basket.items[0].id, 'LATEROFF')
    await ctx.app.db.update(coupons).set({ active: false }).where(eq(coupons.id, coupon.id))
    const res = await ctx.app.inject({ method: 'GET', url: `/stf/v1/baskets/${basket.id}`, headers: a.auth })
    expect(res.json().items[0]).toMatchObject({ coupon: { code: 'LATEROFF', applicable: false, reason: 'coupon_invalid' }, discount: 0, total: 1000 })
  })
})
