import { count, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { basketItems } from '../../src/domain/baskets/baskets.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'

/** docs/selling.md: dates a shop can list, and no sale of the past, in the seller's time zone. */
const ctx = useTestApp()

/** The date in a time zone, `offset` days from today there. */
function dayIn(timeZone: string, offset = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date())
  return new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10)
}

const SAO_PAULO = 'America/Sao_Paulo'
let seller: TestSeller
let stock: { eventId: string; yesterday: string; today: string; later: string }

beforeAll(async () => {
  seller = await createTestSeller(ctx.app)
  const event = await createTestEvent(ctx.app, seller.seller.id, { title: 'Dated show' })
  const at = (offset: number, price: number) => createTestInventory(ctx.app, event, { date: dayIn(SAO_PAULO, offset), price, capacity: 10 })
  stock = { eventId: event.id, yesterday: (await at(-1, 1000)).id, today: (await at(0, 4000)).id, later: (await at(10, 3000)).id }
})

const get = (url: string, who = seller) => ctx.app.inject({ method: 'GET', url, headers: who.auth })
const createBasket = (items: { inventory_id: string; quantity: number }[], who = seller) =>
  ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: who.auth, payload: { items } })
const heldOn = async (inventoryId: string) => (await ctx.app.db.select({ n: count() }).from(basketItems).where(eq(basketItems.inventoryId, inventoryId)))[0]!.n

describe('SellerEvent', () => {
  it('spans the dates of its inventories from today on, and prices only those', async () => {
    const res = await get('/stf/v1/events')
    const event = res.json().data.find((e: { id: string }) => e.id === stock.eventId)
    expect(event).toMatchObject({ first_date: dayIn(SAO_PAULO), last_date: dayIn(SAO_PAULO, 10), price: { amount: 3000 } })
  })

  it('has no dates and no price when every inventory is past, and is not listed in a window of past dates', async () => {
    const event = await createTestEvent(ctx.app, seller.seller.id, { title: 'Over' })
    await createTestInventory(ctx.app, event, { date: dayIn(SAO_PAULO, -3), price: 500 })
    const all = (await get('/stf/v1/events')).json().data
    expect(all.find((e: { id: string }) => e.id === event.id)).toMatchObject({ first_date: null, last_date: null, price: null })
    const window = (await get(`/stf/v1/events?date_from=${dayIn(SAO_PAULO, -5)}&date_to=${dayIn(SAO_PAULO, -1)}`)).json().data
    expect(window.map((e: { id: string }) => e.id)).not.toContain(event.id)
  })

  it('shows 0 available for an inventory dated before today', async () => {
    const res = await get(`/stf/v1/events/${stock.eventId}/availability?from=${dayIn(SAO_PAULO, -2)}&to=${dayIn(SAO_PAULO, 30)}`)
    expect(res.statusCode).toBe(200)
    const available = Object.fromEntries(
      res.json().data.flatMap((day: { inventories: { id: string; available: number }[] }) => day.inventories.map((i) => [i.id, i.available])),
    )
    expect(available).toEqual({ [stock.yesterday]: 0, [stock.today]: 10, [stock.later]: 10 })
  })
})

describe('no sale of the past', () => {
  it('refuses a basket naming an inventory dated yesterday with 409 inventory_unavailable, holding nothing', async () => {
    const res = await createBasket([
      { inventory_id: stock.later, quantity: 1 },
      { inventory_id: stock.yesterday, quantity: 1 },
    ])
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 'inventory_unavailable', details: { inventory_id: stock.yesterday } })
    expect(await heldOn(stock.yesterday)).toBe(0)
  })

  it('refuses adding it to a basket, leaving the basket as it was', async () => {
    const basket = (await createBasket([{ inventory_id: stock.today, quantity: 1 }])).json()
    const res = await ctx.app.inject({
      method: 'PATCH',
      url: `/stf/v1/baskets/${basket.id}/items`,
      headers: seller.auth,
      payload: { items: [{ inventory_id: stock.yesterday, quantity: 2 }] },
    })
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 'inventory_unavailable', details: { inventory_id: stock.yesterday } })
    const after = (await get(`/stf/v1/baskets/${basket.id}`)).json()
    expect(after.items.map((i: { inventory_id: string; quantity: number }) => [i.inventory_id, i.quantity])).toEqual([[stock.today, 1]])
  })

  it('refuses the checkout of a basket whose inventory became past, selling nothing', async () => {
    const event = await createTestEvent(ctx.app, seller.seller.id)
    const inventory = await createTestInventory(ctx.app, event, { date: dayIn(SAO_PAULO, 1), capacity: 5 })
    const buyer = await insertSignedInCustomer(ctx.app, seller)
    const basket = (await createBasket([{ inventory_id: inventory.id, quantity: 2 }])).json()
    // The show was moved to yesterday behind the basket's back.
    await ctx.app.db
      .update(inventories)
      .set({ date: dayIn(SAO_PAULO, -1) })
      .where(eq(inventories.id, inventory.id))
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${basket.id}/checkout`,
      headers: buyer.headers,
      payload: { payment_method: 'pix' },
    })
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 'inventory_unavailable', details: { inventory_id: inventory.id } })
    expect((await ctx.app.db.select({ sold: inventories.sold }).from(inventories).where(eq(inventories.id, inventory.id)))[0]!.sold).toBe(0)
  })

  it('refuses an inventory of a cancelled event with 409 inventory_unavailable, and a draft one with 404', async () => {
    const cancelled = await createTestInventory(ctx.app, await createTestEvent(ctx.app, seller.seller.id, { status: 'cancelled' }))
    const draft = await createTestInventory(ctx.app, await createTestEvent(ctx.app, seller.seller.id, { status: 'draft' }))
    const refused = await createBasket([{ inventory_id: cancelled.id, quantity: 1 }])
    expect(refused.statusCode).toBe(409)
    expect(refused.json()).toMatchObject({ code: 'inventory_unavailable', details: { inventory_id: cancelled.id } })
    expect((await createBasket([{ inventory_id: draft.id, quantity: 1 }])).statusCode).toBe(404)
  })

  it("decides today in the seller's time zone", async () => {
    // Kiritimati (UTC+14) is always a day or more ahead of Pago Pago (UTC-11).
    const ahead = await createTestSeller(ctx.app, { settings: { timezone: 'Pacific/Kiritimati' } })
    const behind = await createTestSeller(ctx.app, { settings: { timezone: 'Pacific/Pago_Pago' } })
    const date = dayIn('Pacific/Pago_Pago')
    const inventoryOf = async (who: TestSeller) => (await createTestInventory(ctx.app, await createTestEvent(ctx.app, who.seller.id), { date })).id
    const refused = await createBasket([{ inventory_id: await inventoryOf(ahead), quantity: 1 }], ahead)
    expect(refused.json()).toMatchObject({ code: 'inventory_unavailable' })
    expect((await createBasket([{ inventory_id: await inventoryOf(behind), quantity: 1 }], behind)).statusCode).toBe(201)
    const profile = (await get('/stf/v1/seller', ahead)).json()
    expect(profile.settings.timezone).toBe('Pacific/Kiritimati')
  })
})
