import { eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { listBasketLines } from '../../src/domain/baskets/baskets.repo.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { PricesMoved, takeTickets } from '../../src/domain/inventory/take-tickets.js'
import { runStatement } from '../../src/platform/db/transaction-ending-with.js'
import { useTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestCustomer, type TestCustomer } from '../factories/customers.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { expectError } from '../support/customer-auth.js'
import { asAdmin } from '../support/staff.js'

// Issue "Selling for real", part 5: half price (meia-entrada) and other variants are sellable.
// A variant may carry its own price, a basket item names it, variants share their inventory's
// tickets, and orders and tickets name the variant sold.

const ctx = useTestApp()
let a: TestSeller
let buyer: TestCustomer
let adm: AdmClient

beforeAll(async () => {
  a = await createTestSeller(ctx.app)
  buyer = await createTestCustomer(ctx.app, a)
  adm = admClient(ctx.app, (await asAdmin(ctx.app)).auth)
})

type Item = { inventory_id: string; quantity: number; variant?: string | null }

const FULL = { name: 'Inteira', description: 'Full price', type: 'full' }
const HALF = { name: 'Meia', description: 'Students and over-60s', type: 'half', price: 2500 }

/** An inventory at 5000 with a full-price variant (no price of its own) and a half-price one. */
async function withVariants(overrides: Parameters<typeof createTestInventory>[2] = {}) {
  const event = await createTestEvent(ctx.app, a.seller.id)
  return createTestInventory(ctx.app, event, { price: 5000, capacity: 10, variants: [FULL, HALF], ...overrides })
}

const post = (items: Item[]) => ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: a.auth, payload: { items } })
const open = async (items: Item[]) => {
  const res = await post(items)
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}
const read = async (id: string) => (await ctx.app.inject({ method: 'GET', url: `/stf/v1/baskets/${id}`, headers: a.auth })).json()
const patch = (id: string, items: Item[]) => ctx.app.inject({ method: 'PATCH', url: `/stf/v1/baskets/${id}/items`, headers: a.auth, payload: { items } })
const checkout = (id: string, payload: object = { payment_method: 'pix' }) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${id}/checkout`, headers: buyer.headers, payload })
const soldOf = async (id: string) => (await ctx.app.db.select({ sold: inventories.sold }).from(inventories).where(eq(inventories.id, id)))[0]!.sold

describe('variants in the back office', () => {
  it('keeps a variant price when given and leaves it out when not (the inventory’s applies)', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const res = await adm.post(`/events/${event.id}/inventories`, { date: '2031-03-01', name: 'Pista', price: 8000, capacity: 10, variants: [FULL, HALF] })
    expect(res.statusCode, res.body).toBe(201)
    const asAnswered = (variant: object) => ({ checkin_attention: false, ...variant })
    expect(res.json().variants).toEqual([FULL, HALF].map(asAnswered))
    const changed = await adm.put(`/inventories/${res.json().id}`, { variants: [{ ...HALF, price: 4000 }] })
    expect(changed.json().variants).toEqual([asAnswered({ ...HALF, price: 4000 })])
  })

  it('refuses two variants of one name and a negative price, naming the field', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const base = { date: '2031-03-01', name: 'Pista', price: 8000, capacity: 10 }
    const twice = await adm.post(`/events/${event.id}/inventories`, { ...base, variants: [FULL, { ...HALF, name: 'Inteira' }] })
    expectError(twice, 400, 'validation_error')
    expect(twice.json().details).toEqual([expect.objectContaining({ path: 'variants.1.name' })])
    const negative = await adm.post(`/events/${event.id}/inventories`, { ...base, variants: [{ ...HALF, price: -1 }] })
    expectError(negative, 400, 'validation_error')
    expect(negative.json().details).toEqual([expect.objectContaining({ path: 'variants.0.price' })])
  })
})

describe('variants on the storefront', () => {
  it('lists each variant with its price in the availability', async () => {
    const inventory = await withVariants()
    const res = await ctx.app.inject({ method: 'GET', url: `/stf/v1/events/${inventory.eventId}/availability`, headers: a.auth })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data[0].inventories[0]).toMatchObject({ price: 5000, variants: [{ ...FULL, price: 5000 }, HALF] })
  })

  it('prices each item at its variant, names it, and holds them all from the inventory’s one capacity', async () => {
    const inventory = await withVariants()
    const basket = await open([
      { inventory_id: inventory.id, variant: 'Meia', quantity: 2 },
      { inventory_id: inventory.id, variant: 'Inteira', quantity: 1 },
      { inventory_id: inventory.id, quantity: 1 },
    ])
    expect(basket.items.map((i: Record<string, unknown>) => [i.variant, i.quantity, i.unit_price, i.total])).toEqual([
      ['Meia', 2, 2500, 5000],
      ['Inteira', 1, 5000, 5000],
      [null, 1, 5000, 5000],
    ])
    expect(basket.totals).toEqual({ subtotal: 15_000, discount: 0, total: 15_000 })
    expect(await read(basket.id)).toEqual(basket)
    // 4 of 10 held, whatever the variants: 7 more do not fit, split over variants or not.
    expectError(await post([{ inventory_id: inventory.id, variant: 'Meia', quantity: 7 }]), 409, 'insufficient_inventory')
    expectError(
      await post([
        { inventory_id: inventory.id, variant: 'Meia', quantity: 4 },
        { inventory_id: inventory.id, variant: 'Inteira', quantity: 3 },
      ]),
      409,
      'insufficient_inventory',
    )
    await open([
      { inventory_id: inventory.id, variant: 'Meia', quantity: 3 },
      { inventory_id: inventory.id, variant: 'Inteira', quantity: 3 },
    ])
    const availability = await ctx.app.inject({ method: 'GET', url: `/stf/v1/events/${inventory.eventId}/availability`, headers: a.auth })
    expect(availability.json().data[0].inventories[0].available).toBe(0)
  })

  it('answers 400 naming the item for an unknown variant or the same variant twice, and 404 (not 400) for an inventory not on sale', async () => {
    const inventory = await withVariants()
    const unknown = await post([
      { inventory_id: inventory.id, quantity: 1 },
      { inventory_id: inventory.id, variant: 'Estudante', quantity: 1 },
    ])
    expectError(unknown, 400, 'validation_error')
    expect(unknown.json().details).toEqual([expect.objectContaining({ path: 'items.1.variant' })])
    const twice = await post([
      { inventory_id: inventory.id, variant: 'Meia', quantity: 1 },
      { inventory_id: inventory.id, variant: 'Meia', quantity: 2 },
    ])
    expectError(twice, 400, 'validation_error')
    expect(twice.json().details).toEqual([expect.objectContaining({ path: 'items.1.inventory_id' })])
    // A draft event's inventory does not exist for buyers: its variants are not to be probed.
    const draft = await createTestInventory(ctx.app, await createTestEvent(ctx.app, a.seller.id, { status: 'draft' }), { variants: [HALF] })
    expectError(await post([{ inventory_id: draft.id, variant: 'Nope', quantity: 1 }]), 404, 'not_found')
    const other = await createTestSeller(ctx.app)
    const theirs = await createTestInventory(ctx.app, await createTestEvent(ctx.app, other.seller.id), { variants: [HALF] })
    expectError(await post([{ inventory_id: theirs.id, variant: 'Nope', quantity: 1 }]), 404, 'not_found')
  })

  it('changes, adds and removes variant items with PATCH, keeping the others', async () => {
    const inventory = await withVariants()
    const basket = await open([{ inventory_id: inventory.id, variant: 'Meia', quantity: 1 }])
    const res = await patch(basket.id, [
      { inventory_id: inventory.id, variant: 'Meia', quantity: 3 },
      { inventory_id: inventory.id, variant: 'Inteira', quantity: 2 },
    ])
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().items.map((i: Record<string, unknown>) => [i.variant, i.quantity, i.unit_price])).toEqual([
      ['Meia', 3, 2500],
      ['Inteira', 2, 5000],
    ])
    expect(res.json().items[0].id).toBe(basket.items[0].id)
    // 9 half-price and the 2 full-price are 11 of the 10 tickets.
    expectError(await patch(basket.id, [{ inventory_id: inventory.id, variant: 'Meia', quantity: 9 }]), 409, 'insufficient_inventory')
    const unknown = await patch(basket.id, [{ inventory_id: inventory.id, variant: 'VIP', quantity: 1 }])
    expectError(unknown, 400, 'validation_error')
    expect(unknown.json().details).toEqual([expect.objectContaining({ path: 'items.0.variant' })])
    const removed = await patch(basket.id, [{ inventory_id: inventory.id, variant: 'Meia', quantity: 0 }])
    expect(removed.json().items.map((i: Record<string, unknown>) => [i.variant, i.quantity])).toEqual([['Inteira', 2]])
    expect(await read(basket.id)).toEqual(removed.json())
  })

  it('sells at the variant prices: order items and tickets name their variant, and the capacity counts them all', async () => {
    const inventory = await withVariants()
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { type: 'fixed', value: 1001 })
    const basket = await open([
      { inventory_id: inventory.id, variant: 'Meia', quantity: 2 },
      { inventory_id: inventory.id, variant: 'Inteira', quantity: 1 },
    ])
    const applied = await ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basket.id}/coupon`, headers: a.auth, payload: { code: coupon.code } })
    expect(applied.json().totals).toEqual({ subtotal: 10_000, discount: 1001, total: 8999 })
    const res = await checkout(basket.id, { payment_method: 'pix', expected_total: 8999 })
    expect(res.statusCode, res.body).toBe(201)
    const order = res.json()
    expect(order.items.map((i: Record<string, unknown>) => [i.variant, i.quantity, i.unit_price])).toEqual([
      ['Meia', 2, 2500],
      ['Inteira', 1, 5000],
    ])
    expect(order.items.reduce((sum: number, i: { total: number }) => sum + i.total, 0)).toBe(8999)
    expect(order.tickets.map((t: { variant: string }) => t.variant)).toEqual(['Meia', 'Meia', 'Inteira'])
    expect(await soldOf(inventory.id)).toBe(3)
    const sold = await read(basket.id)
    expect(sold).toMatchObject({ status: 'checked_out', order_id: order.id })
    expect(sold.items.map((i: Record<string, unknown>) => [i.id, i.variant])).toEqual(basket.items.map((i: Record<string, unknown>) => [i.id, i.variant]))
    const [audit] = await ctx.app.db.select().from(auditLog).where(eq(auditLog.targetId, basket.id))
    expect(audit?.data).toMatchObject({ items: [{ variant: 'Meia' }, { variant: 'Inteira' }] })
    // Cancelling returns every ticket of every variant to the one capacity.
    const cancelled = await adm.post(`/orders/${order.id}/cancel`, {})
    expect(cancelled.statusCode, cancelled.body).toBe(200)
    expect(cancelled.json().tickets.map((t: { variant: string; status: string }) => [t.variant, t.status])).toEqual([
      ['Meia', 'voided'],
      ['Meia', 'voided'],
      ['Inteira', 'voided'],
    ])
    expect(await soldOf(inventory.id)).toBe(0)
  })

  it('refuses with price_changed when a variant price moved after the partner charged, and sells at the new price when asked', async () => {
    const inventory = await withVariants()
    const basket = await open([{ inventory_id: inventory.id, variant: 'Meia', quantity: 2 }])
    expect((await adm.put(`/inventories/${inventory.id}`, { variants: [FULL, { ...HALF, price: 3000 }] })).statusCode).toBe(200)
    const refused = await checkout(basket.id, { payment_method: 'pix', expected_total: 5000 })
    expectError(refused, 409, 'price_changed')
    expect(refused.json().details).toMatchObject({ expected_total: 5000, total: 6000 })
    expect(await soldOf(inventory.id)).toBe(0)
    const sold = await checkout(basket.id, { payment_method: 'pix', expected_total: 6000 })
    expect(sold.statusCode, sold.body).toBe(201)
    expect(sold.json().items[0]).toMatchObject({ variant: 'Meia', unit_price: 3000, total: 6000 })
  })

  it('shows an item whose variant was withdrawn as unavailable, refuses its checkout with inventory_unavailable, and lets PATCH remove it', async () => {
    const inventory = await withVariants()
    const basket = await open([
      { inventory_id: inventory.id, variant: 'Meia', quantity: 1 },
      { inventory_id: inventory.id, quantity: 1 },
    ])
    expect((await adm.put(`/inventories/${inventory.id}`, { variants: [FULL] })).statusCode).toBe(200)
    expect((await read(basket.id)).items.map((i: { available: boolean }) => i.available)).toEqual([false, true])
    const refused = await checkout(basket.id)
    expectError(refused, 409, 'inventory_unavailable')
    expect(refused.json().details).toEqual({ inventory_id: inventory.id, variant: 'Meia' })
    expect(await soldOf(inventory.id)).toBe(0)
    const removed = await patch(basket.id, [{ inventory_id: inventory.id, variant: 'Meia', quantity: 0 }])
    expect(removed.statusCode, removed.body).toBe(200)
    expect(removed.json().items).toEqual([expect.objectContaining({ variant: null, available: true })])
    expect((await checkout(basket.id)).statusCode).toBe(201)
  })

  it('refuses, under the locks, a sale priced with variants that changed since they were read', async () => {
    const inventory = await withVariants()
    const basket = await open([{ inventory_id: inventory.id, variant: 'Meia', quantity: 1 }])
    const [line] = await listBasketLines(ctx.app.db, basket.id)
    expect(line?.variantsDigest).toMatch(/^[0-9a-f]{32}$/)
    const take = (digest: string) =>
      ctx.app.db.transaction((tx) =>
        runStatement(
          tx,
          takeTickets({
            sellerId: a.seller.id,
            scope: null,
            basketId: basket.id,
            wanted: new Map([[inventory.id, 1]]),
            added: new Map(),
            variants: new Map([[inventory.id, digest]]),
            sell: false,
          }),
        ),
      )
    await expect(take('0'.repeat(32))).rejects.toBeInstanceOf(PricesMoved)
    expect((await take(line!.variantsDigest!)).get(inventory.id)).toMatchObject({ price: 5000 })
  })
})
