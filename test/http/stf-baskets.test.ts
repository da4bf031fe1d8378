import { count, eq, sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { baskets } from '../../src/domain/baskets/baskets.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { announceTicketsFreedHere } from '../../src/domain/inventory/availability-memo.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { createTestAffiliate, createTestSeller, type TestSeller, useTwoSellers } from '../factories/sellers.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx, { a: { settings: { basket_ttl_seconds: 600 } } })

type Headers = Record<string, string>
type Item = { inventory_id: string; quantity: number }

const create = (headers: Headers, items: Item[], extra: Headers = {}) =>
  ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: { ...headers, ...extra }, payload: { items } })
const read = (headers: Headers, id: string) => ctx.app.inject({ method: 'GET', url: `/stf/v1/baskets/${id}`, headers })
const patch = (headers: Headers, id: string, items: Item[]) =>
  ctx.app.inject({ method: 'PATCH', url: `/stf/v1/baskets/${id}/items`, headers, payload: { items } })
const availability = async (headers: Headers, eventId: string) =>
  Object.fromEntries(
    (await ctx.app.inject({ method: 'GET', url: `/stf/v1/events/${eventId}/availability`, headers }))
      .json()
      .data.flatMap((d: { inventories: { id: string; available: number }[] }) => d.inventories.map((i) => [i.id, i.available])),
  )
/**
 * Lapses a basket's hold now, as time passing would, and forgets at once what this process read of
 * availability before (the database's notice of the change reaches it a few milliseconds later, on
 * a busy machine later still; a change the application makes itself is announced here the same way).
 */
const expire = async (id: string) => {
  await ctx.app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, id))
  announceTicketsFreedHere(ctx.app.db, '*')
}
const basketCount = async () => Number((await ctx.app.db.select({ n: count() }).from(baskets))[0]!.n)

async function stock(seller: TestSeller, capacity = 10, overrides: Parameters<typeof createTestInventory>[2] = {}) {
  const event = await createTestEvent(ctx.app, seller.seller.id)
  const inventory = await createTestInventory(ctx.app, event, { capacity, ...overrides })
  return { event, inventory }
}

describe('POST /stf/v1/baskets', () => {
  it('opens a basket that holds its tickets until now + the seller TTL, in the Basket shape', async () => {
    const { event, inventory } = await stock(a, 10, { price: 4500, name: 'Pista', date: dayFromToday(10) })
    const before = Date.now()
    const res = await create(a.auth, [{ inventory_id: inventory.id, quantity: 3 }])
    expect(res.statusCode).toBe(201)
    const body = res.json()
    expect(body).toEqual({
      id: expect.any(String),
      status: 'open',
      expires_at: expect.any(String),
      affiliate_code: null,
      customer_id: null,
      order_id: null,
      items: [
        {
          id: expect.any(String),
          inventory_id: inventory.id,
          event_id: event.id,
          date: dayFromToday(10),
          name: 'Pista',
          variant: null,
          quantity: 3,
          unit_price: 4500,
          discount: 0,
          total: 13500,
          seats: null,
          coupon: null,
          available: true,
        },
      ],
      coupon: null,
      totals: { subtotal: 13500, discount: 0, total: 13500 },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const ttl = Date.parse(body.expires_at) - before
    expect(ttl).toBeGreaterThan(590_000)
    expect(ttl).toBeLessThan(610_000)
    expect((await availability(a.auth, event.id))[inventory.id]).toBe(7)
    const [audit] = await ctx.app.db.select().from(auditLog).where(eq(auditLog.targetId, body.id))
    expect(audit).toMatchObject({ action: 'stf.basket.created', actorType: 'seller', sellerId: a.seller.id })
  })

  it('uses the default 15-minute hold for a seller with default settings', async () => {
    const { inventory } = await stock(b)
    const body = (await create(b.auth, [{ inventory_id: inventory.id, quantity: 1 }])).json()
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(900_000)
  })

  it('refuses quantities outside 1..20, a repeated inventory, unknown fields and malformed ids with 400', async () => {
    const { inventory } = await stock(a)
    const bad: unknown[] = [
      { items: [{ inventory_id: inventory.id, quantity: 0 }] },
      { items: [{ inventory_id: inventory.id, quantity: 21 }] },
      { items: [{ inventory_id: inventory.id, quantity: 1.5 }] },
      {
        items: [
          { inventory_id: inventory.id, quantity: 1 },
          { inventory_id: inventory.id, quantity: 2 },
        ],
      },
      { items: [{ inventory_id: inventory.id, quantity: 1, price: 1 }] },
      { items: [{ inventory_id: 'nope', quantity: 1 }] },
      { items: [], coupon: 'X' },
      {},
    ]
    for (const payload of bad) {
      const res = await ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: a.auth, payload: payload as object })
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
    const dup = await create(a.auth, [
      { inventory_id: inventory.id, quantity: 1 },
      { inventory_id: inventory.id, quantity: 2 },
    ])
    expect(dup.json().details).toEqual([expect.objectContaining({ path: 'items.1.inventory_id' })])
  })

  it("answers 404 for an inventory that is unknown, another seller's, of a draft event or outside the affiliate's events, holding nothing", async () => {
    const mine = await stock(a, 5)
    const theirs = await stock(b, 5)
    const scoped = await stock(a, 5)
    const draftEvent = await createTestEvent(ctx.app, a.seller.id, { status: 'draft' })
    const draftInventory = await createTestInventory(ctx.app, draftEvent)
    await createTestAffiliate(ctx.app, a.seller.id, { code: 'ONEEVENT', eventIds: [scoped.event.id] })
    const before = await basketCount()
    for (const [id, headers] of [
      [crypto.randomUUID(), a.auth],
      [theirs.inventory.id, a.auth],
      [draftInventory.id, a.auth],
      [mine.inventory.id, { ...a.auth, 'x-affiliate-code': 'ONEEVENT' }],
    ] as const) {
      const res = await create(headers, [
        { inventory_id: scoped.inventory.id, quantity: 1 },
        { inventory_id: id, quantity: 1 },
      ])
      expect(res.statusCode, id).toBe(404)
      expect(res.json()).toMatchObject({ code: 'not_found', details: [{ path: 'items.1.inventory_id' }] })
    }
    expect(await basketCount()).toBe(before)
    expect((await availability(a.auth, scoped.event.id))[scoped.inventory.id]).toBe(5)
  })

  it('holds every requested quantity or none: 409 insufficient_inventory leaves nothing behind', async () => {
    const plenty = await stock(a, 10)
    const scarce = await stock(a, 2, { sold: 1 })
    const before = await basketCount()
    const res = await create(a.auth, [
      { inventory_id: plenty.inventory.id, quantity: 5 },
      { inventory_id: scarce.inventory.id, quantity: 2 },
    ])
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 'insufficient_inventory', details: [{ path: 'items.1.quantity', message: expect.stringContaining('1 left') }] })
    expect(await basketCount()).toBe(before)
    expect((await availability(a.auth, plenty.event.id))[plenty.inventory.id]).toBe(10)
  })

  it('counts other open baskets as held, and no longer counts them once expired', async () => {
    const { event, inventory } = await stock(a, 4)
    const first = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 3 }])).json()
    expect((await create(a.auth, [{ inventory_id: inventory.id, quantity: 2 }])).statusCode).toBe(409)
    await expire(first.id)
    expect((await availability(a.auth, event.id))[inventory.id]).toBe(4)
    expect((await create(a.auth, [{ inventory_id: inventory.id, quantity: 4 }])).statusCode).toBe(201)
    expect((await availability(a.auth, event.id))[inventory.id]).toBe(0)
  })

  it('opens an empty basket', async () => {
    const res = await create(a.auth, [])
    expect(res.statusCode).toBe(201)
    expect(res.json()).toMatchObject({ items: [], totals: { subtotal: 0, discount: 0, total: 0 } })
  })
})

describe('GET /stf/v1/baskets/{id}', () => {
  it('reads a basket back as it was answered', async () => {
    const { inventory } = await stock(a)
    const created = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 2 }])).json()
    const res = await read(a.auth, created.id)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual(created)
  })

  it('reads an expired basket with status expired', async () => {
    const { inventory } = await stock(a)
    const created = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 2 }])).json()
    await expire(created.id)
    expect((await read(a.auth, created.id)).json().status).toBe('expired')
  })

  it("answers 404 for another seller's basket and 400 for a malformed id", async () => {
    const { inventory } = await stock(a)
    const created = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 1 }])).json()
    const other = await read(b.auth, created.id)
    expect(other.statusCode).toBe(404)
    expect(other.json().code).toBe('not_found')
    expect((await read(a.auth, crypto.randomUUID())).statusCode).toBe(404)
    expect((await read(a.auth, 'not-a-uuid')).statusCode).toBe(400)
  })

  it('addresses a basket made under an affiliate code only with that code, and one made without a code only without one', async () => {
    const { inventory } = await stock(a)
    await createTestAffiliate(ctx.app, a.seller.id, { code: 'AFFA' })
    await createTestAffiliate(ctx.app, a.seller.id, { code: 'AFFB' })
    const asA = { ...a.auth, 'x-affiliate-code': 'AFFA' }
    const asB = { ...a.auth, 'x-affiliate-code': 'AFFB' }
    const underA = (await create(asA, [{ inventory_id: inventory.id, quantity: 1 }])).json()
    expect(underA.affiliate_code).toBe('AFFA')
    const plain = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 1 }])).json()

    expect((await read(asA, underA.id)).statusCode).toBe(200)
    expect((await read({ ...a.auth, 'x-affiliate-code': 'affa' }, underA.id)).statusCode).toBe(200)
    expect((await read(a.auth, underA.id)).statusCode).toBe(404)
    expect((await read(asB, underA.id)).statusCode).toBe(404)
    expect((await patch(a.auth, underA.id, [{ inventory_id: inventory.id, quantity: 2 }])).statusCode).toBe(404)
    expect((await read(a.auth, plain.id)).statusCode).toBe(200)
    expect((await read(asA, plain.id)).statusCode).toBe(404)
    expect((await patch(asA, plain.id, [{ inventory_id: inventory.id, quantity: 2 }])).statusCode).toBe(404)
  })
})

describe('PATCH /stf/v1/baskets/{id}/items', () => {
  it('sets listed quantities, removes items set to 0 and keeps unlisted ones', async () => {
    const x = await stock(a)
    const y = await stock(a)
    const z = await stock(a)
    const created = (
      await create(a.auth, [
        { inventory_id: x.inventory.id, quantity: 1 },
        { inventory_id: y.inventory.id, quantity: 2 },
      ])
    ).json()
    const res = await patch(a.auth, created.id, [
      { inventory_id: x.inventory.id, quantity: 0 },
      { inventory_id: z.inventory.id, quantity: 4 },
      { inventory_id: crypto.randomUUID(), quantity: 0 },
    ])
    expect(res.statusCode).toBe(200)
    const quantities = Object.fromEntries(res.json().items.map((i: Item) => [i.inventory_id, i.quantity]))
    expect(quantities).toEqual({ [y.inventory.id]: 2, [z.inventory.id]: 4 })
    expect(res.json().totals).toEqual({ subtotal: 30000, discount: 0, total: 30000 })
    const again = await patch(a.auth, created.id, [{ inventory_id: y.inventory.id, quantity: 5 }])
    expect(again.json().items.find((i: Item) => i.inventory_id === y.inventory.id)).toMatchObject({ quantity: 5, total: 25000 })
    // The item keeps its id when its quantity changes.
    expect(again.json().items.find((i: Item) => i.inventory_id === y.inventory.id).id).toBe(
      res.json().items.find((i: Item) => i.inventory_id === y.inventory.id).id,
    )
    expect((await availability(a.auth, x.event.id))[x.inventory.id]).toBe(10)
    expect((await availability(a.auth, y.event.id))[y.inventory.id]).toBe(5)
  })

  it('renews the hold on every successful change', async () => {
    const { inventory } = await stock(a)
    const created = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 1 }])).json()
    await ctx.app.db.update(baskets).set({ expiresAt: sql`now() + interval '5 seconds'` }).where(eq(baskets.id, created.id))
    const res = await patch(a.auth, created.id, [{ inventory_id: inventory.id, quantity: 2 }])
    expect(Date.parse(res.json().expires_at) - Date.now()).toBeGreaterThan(590_000)
  })

  it('changes all or nothing: 409 insufficient_inventory leaves the basket as it was', async () => {
    const x = await stock(a, 10)
    const y = await stock(a, 3)
    const created = (await create(a.auth, [{ inventory_id: x.inventory.id, quantity: 2 }])).json()
    const before = (await read(a.auth, created.id)).json()
    const res = await patch(a.auth, created.id, [
      { inventory_id: x.inventory.id, quantity: 0 },
      { inventory_id: y.inventory.id, quantity: 4 },
    ])
    expect(res.statusCode).toBe(409)
    expect(res.json().code).toBe('insufficient_inventory')
    expect((await read(a.auth, created.id)).json()).toEqual(before)
  })

  it("does not count the basket's own hold against it", async () => {
    const { inventory } = await stock(a, 3)
    const created = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 3 }])).json()
    const res = await patch(a.auth, created.id, [{ inventory_id: inventory.id, quantity: 3 }])
    expect(res.statusCode).toBe(200)
    expect((await patch(a.auth, created.id, [{ inventory_id: inventory.id, quantity: 4 }])).statusCode).toBe(409)
  })

  it('rechecks the items already in the basket when renewing the hold', async () => {
    const x = await stock(a, 2)
    const y = await stock(a, 10)
    const created = (await create(a.auth, [{ inventory_id: x.inventory.id, quantity: 2 }])).json()
    // Something else took one of the tickets this basket held (say its hold lapsed for a moment).
    await ctx.app.db.update(inventories).set({ sold: 1 }).where(eq(inventories.id, x.inventory.id))
    const res = await patch(a.auth, created.id, [{ inventory_id: y.inventory.id, quantity: 1 }])
    expect(res.statusCode).toBe(409)
    expect(res.json().details[0].message).toContain(x.inventory.id)
  })

  it('counts an item whose event stopped selling as sold out, and lets it be removed', async () => {
    const x = await stock(a, 5)
    const y = await stock(a, 5)
    const created = (await create(a.auth, [{ inventory_id: x.inventory.id, quantity: 1 }])).json()
    await ctx.app.db.execute(sql`update events set status = 'cancelled' where id = ${x.event.id}`)
    expect((await patch(a.auth, created.id, [{ inventory_id: y.inventory.id, quantity: 1 }])).statusCode).toBe(409)
    const res = await patch(a.auth, created.id, [
      { inventory_id: x.inventory.id, quantity: 0 },
      { inventory_id: y.inventory.id, quantity: 1 },
    ])
    expect(res.statusCode).toBe(200)
    expect(res.json().items.map((i: Item) => i.inventory_id)).toEqual([y.inventory.id])
  })

  it('refuses a repeated inventory, quantities over 20 and an empty list with 400, and accepts 0', async () => {
    const { inventory } = await stock(a)
    const created = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 1 }])).json()
    for (const items of [
      [
        { inventory_id: inventory.id, quantity: 1 },
        { inventory_id: inventory.id, quantity: 0 },
      ],
      [{ inventory_id: inventory.id, quantity: 21 }],
      [{ inventory_id: inventory.id, quantity: -1 }],
      [],
    ]) {
      const res = await patch(a.auth, created.id, items)
      expect(res.statusCode, JSON.stringify(items)).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
    const emptied = await patch(a.auth, created.id, [{ inventory_id: inventory.id, quantity: 0 }])
    expect(emptied.statusCode).toBe(200)
    expect(emptied.json().items).toEqual([])
  })

  it("answers 404 for an inventory not on sale to this caller and for another seller's basket", async () => {
    const { inventory } = await stock(a)
    const theirs = await stock(b)
    const created = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 1 }])).json()
    const foreign = await patch(a.auth, created.id, [{ inventory_id: theirs.inventory.id, quantity: 1 }])
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json().details).toEqual([expect.objectContaining({ path: 'items.0.inventory_id' })])
    expect((await patch(b.auth, created.id, [{ inventory_id: theirs.inventory.id, quantity: 1 }])).statusCode).toBe(404)
  })

  it('answers 410 basket_expired once the hold has lapsed', async () => {
    const { inventory } = await stock(a)
    const created = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 1 }])).json()
    await expire(created.id)
    const res = await patch(a.auth, created.id, [{ inventory_id: inventory.id, quantity: 2 }])
    expect(res.statusCode).toBe(410)
    expect(res.json().code).toBe('basket_expired')
    expect((await read(a.auth, created.id)).json().items[0].quantity).toBe(1)
  })
})

describe('POST /stf/v1/baskets/{id}/installments', () => {
  it('answers the plans for the basket total', async () => {
    const { inventory } = await stock(a, 10, { price: 5000 })
    const created = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 2 }])).json()
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${created.id}/installments`,
      headers: a.auth,
      payload: { payment_method: 'credit_card' },
    })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ payment_method: 'credit_card', total: 10000 })
    expect(body.plans).toHaveLength(12)
    expect(body.plans[0]).toEqual({ installments: 1, amount: 10000, last_amount: 10000, total: 10000, interest: 0, monthly_rate: 0 })
    expect(body.plans[2]).toEqual({ installments: 3, amount: 3535, last_amount: 3535, total: 10605, interest: 605, monthly_rate: 0.0299 })
    expect(body.plans[11]).toEqual({ installments: 12, amount: 1004, last_amount: 1004, total: 12048, interest: 2048, monthly_rate: 0.0299 })

    const pix = await ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${created.id}/installments`, headers: a.auth, payload: { payment_method: 'pix' } })
    expect(pix.json()).toEqual({
      payment_method: 'pix',
      total: 10000,
      plans: [{ installments: 1, amount: 10000, last_amount: 10000, total: 10000, interest: 0, monthly_rate: 0 }],
    })
  })

  it("follows the seller's installment settings", async () => {
    const seller = await createTestSeller(ctx.app, { settings: { max_installments: 3, interest_free_installments: 3, min_installment_amount: 100 } })
    const { inventory } = await stock(seller, 10, { price: 1000 })
    const created = (await create(seller.auth, [{ inventory_id: inventory.id, quantity: 1 }])).json()
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${created.id}/installments`,
      headers: seller.auth,
      payload: { payment_method: 'credit_card' },
    })
    expect(res.json().plans.map((p: { amount: number }) => p.amount)).toEqual([1000, 500, 334])
  })

  it('answers 422 unsupported_payment_method, 410 for an expired basket and 404 for another seller', async () => {
    const { inventory } = await stock(a)
    const created = (await create(a.auth, [{ inventory_id: inventory.id, quantity: 1 }])).json()
    const ask = (headers: Headers, payment_method: string) =>
      ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${created.id}/installments`, headers, payload: { payment_method } })
    const bad = await ask(a.auth, 'bitcoin')
    expect(bad.statusCode).toBe(422)
    expect(bad.json().code).toBe('unsupported_payment_method')
    expect((await ask(b.auth, 'pix')).statusCode).toBe(404)
    await expire(created.id)
    const expired = await ask(a.auth, 'pix')
    expect(expired.statusCode).toBe(410)
    expect(expired.json().code).toBe('basket_expired')
  })
})
