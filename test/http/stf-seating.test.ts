import { readFileSync } from 'node:fs'
import { eq, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { baskets } from '../../src/domain/baskets/baskets.table.js'
import { tickets } from '../../src/domain/orders/orders.table.js'
import { sellers } from '../../src/domain/sellers/sellers.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, dayFromToday } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createSeatedInventory, createTestPlan, PARTY_VARIANTS, type TestRow } from '../factories/seating.js'
import { useTwoSellers, type TestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { createStaff } from '../support/staff.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let adm: AdmClient

beforeAll(async () => {
  adm = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.catalog.read', 'adm.catalog.write', 'adm.orders.read', 'adm.orders.write'] })).auth)
})

type Headers = Record<string, string>
type Item = { inventory_id: string; quantity?: number; seats?: string[]; together?: boolean; variant?: string }

const create = (headers: Headers, items: Item[]) => ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items } })
const patch = (headers: Headers, id: string, items: Item[]) =>
  ctx.app.inject({ method: 'PATCH', url: `/stf/v1/baskets/${id}/items`, headers, payload: { items } })
const checkout = (basketId: string, headers: Headers) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/checkout`, headers, payload: { payment_method: 'pix' } })
const seatIds = (item: { seats: { id: string }[] | null }) => item.seats?.map((seat) => seat.id)
const counts = async (eventId: string, inventoryId: string) =>
  ((await adm.get(`/events/${eventId}/inventories`)).json().data as { id: string }[]).find((row) => row.id === inventoryId)
const expire = (id: string) => ctx.app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, id))

/** A published event selling one category of a new plan of the seller through the back office. */
const seated = (seller: TestSeller, rows: TestRow[], category = 'Plateia', extra: Record<string, unknown> = {}) =>
  createSeatedInventory(ctx.app, adm, seller.seller.id, rows, category, extra)

describe('a seated inventory', () => {
  it('takes its capacity from its category and says its seating', async () => {
    const { plan, inventory } = await seated(a, [
      { category: 'Plateia', seats: 6 },
      { category: 'Balcão', seats: 4 },
    ])
    expect(inventory).toMatchObject({ capacity: 6, available: 6, seating: { plan_id: plan.id, category: 'Plateia' } })
  })

  it('refuses capacity with seating, an unknown category, another seller’s plan, and a second inventory of one category', async () => {
    const { plan, event } = await seated(a, [{ category: 'Plateia', seats: 4 }])
    const post = (body: Record<string, unknown>) => adm.post(`/events/${event.id}/inventories`, { date: dayFromToday(7), name: 'X', price: 1, ...body })
    expect((await post({ capacity: 4, seating: { plan_id: plan.id, category: 'Plateia' } })).statusCode).toBe(400)
    expect((await post({ seating: { plan_id: plan.id, category: 'Nope' } })).statusCode).toBe(400)
    const theirs = await createTestPlan(ctx.app, b.seller.id, [{ category: 'Plateia', seats: 4 }])
    expect((await post({ seating: { plan_id: theirs.id, category: 'Plateia' } })).statusCode).toBe(404)
    const again = await post({ seating: { plan_id: plan.id, category: 'Plateia' } })
    expect(again.statusCode).toBe(409)
    expect(again.json().code).toBe('seating_conflict')
    const other = await createTestPlan(ctx.app, a.seller.id, [{ category: 'Balcão', seats: 4 }])
    expect((await post({ seating: { plan_id: other.id, category: 'Balcão' } })).json().code).toBe('seating_conflict')
  })

  it('keeps its seating once a seat was held', async () => {
    const { plan, inventory } = await seated(a, [{ category: 'Plateia', seats: 4 }])
    expect((await create(a.auth, [{ inventory_id: inventory.id, quantity: 1 }])).statusCode).toBe(201)
    const res = await adm.put(`/inventories/${inventory.id}`, { seating: null })
    expect(res.statusCode).toBe(409)
    expect(res.json().code).toBe('seating_conflict')
    expect((await adm.put(`/inventories/${inventory.id}`, { seating: { plan_id: plan.id, category: 'Plateia' } })).statusCode).toBe(200)
  })
})

describe('best available', () => {
  it('holds adjacent seats nearest the middle of the first row, and counts them held', async () => {
    const { event, inventory } = await seated(a, [
      { category: 'Plateia', seats: 8 },
      { category: 'Plateia', seats: 8 },
    ])
    const res = await create(a.auth, [{ inventory_id: inventory.id, quantity: 2 }])
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().items[0].seats).toEqual([
      { id: 'A4', zone: 'Plateia', row: 'A', number: '4', category: 'Plateia' },
      { id: 'A5', zone: 'Plateia', row: 'A', number: '5', category: 'Plateia' },
    ])
    const read = await ctx.app.inject({ method: 'GET', url: `/stf/v1/baskets/${res.json().id}`, headers: a.auth })
    expect(seatIds(read.json().items[0])).toEqual(['A4', 'A5'])
    expect(await counts(event.id, inventory.id)).toMatchObject({ held: 2, available: 14 })
  })

  it('never strands a single seat when another block avoids it, on odd and even rows', async () => {
    // Row A: 5 seats; taking 2 in the middle (2-3 or 3-4) would strand seat 1 or 5: 1-2 or 4-5 instead.
    const odd = await seated(a, [{ category: 'Plateia', seats: 5 }])
    const first = await create(a.auth, [{ inventory_id: odd.inventory.id, quantity: 2 }])
    expect(seatIds(first.json().items[0])).toEqual(['A1', 'A2'])
    // Row A: 6 seats; 3 of them nearest the middle (2-4 or 3-5) would strand seat 1 or 6: 1-3 (the lower of 1-3 and 4-6).
    const even = await seated(a, [{ category: 'Plateia', seats: 6 }])
    const second = await create(a.auth, [{ inventory_id: even.inventory.id, quantity: 3 }])
    expect(seatIds(second.json().items[0])).toEqual(['A1', 'A2', 'A3'])
    // What is left (4-6) holds 2 that strand nobody only at 5-6? No: 4-5 strands 6, 5-6 strands 4; both strand, so the middle decides: 4-5.
    const third = await create(a.auth, [{ inventory_id: even.inventory.id, quantity: 2 }])
    expect(seatIds(third.json().items[0])).toEqual(['A4', 'A5'])
  })

  it('treats an aisle as a break, and answers seats_not_together with the largest block, or any seats with together false', async () => {
    const { inventory } = await seated(a, [{ category: 'Plateia', seats: 4, aisleAfter: [2] }])
    const refused = await create(a.auth, [{ inventory_id: inventory.id, quantity: 3 }])
    expect(refused.statusCode).toBe(409)
    expect(refused.json()).toMatchObject({ code: 'seats_not_together', details: { max_together: 2 } })
    const apart = await create(a.auth, [{ inventory_id: inventory.id, quantity: 3, together: false }])
    expect(apart.statusCode, apart.body).toBe(201)
    expect(apart.json().items[0].seats).toHaveLength(3)
    const none = await create(a.auth, [{ inventory_id: inventory.id, quantity: 2 }])
    expect(none.json().code).toBe('insufficient_inventory')
  })
})

describe('named seats', () => {
  it('holds exactly those, and refuses taken, unknown and unseated ones, leaving the basket unchanged', async () => {
    const { inventory } = await seated(a, [{ category: 'Plateia', seats: 6 }])
    const mine = await create(a.auth, [{ inventory_id: inventory.id, seats: ['A2', 'A3'] }])
    expect(mine.statusCode, mine.body).toBe(201)
    expect(seatIds(mine.json().items[0])).toEqual(['A2', 'A3'])
    const [audit] = await ctx.app.db.select().from(auditLog).where(eq(auditLog.targetId, mine.json().id))
    expect(audit?.data).toMatchObject({ items: [{ inventory_id: inventory.id, seats: ['A2', 'A3'] }] })
    const taken = await create(a.auth, [{ inventory_id: inventory.id, seats: ['A3', 'A4'] }])
    expect(taken.statusCode).toBe(409)
    expect(taken.json()).toMatchObject({ code: 'seat_unavailable', details: { seats: ['A3'] } })
    const unknown = await create(a.auth, [{ inventory_id: inventory.id, seats: ['Z9'] }])
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().details[0].path).toBe('items.0.seats')
    const twice = await create(a.auth, [{ inventory_id: inventory.id, seats: ['A5', 'A5'] }])
    expect(twice.statusCode).toBe(400)
    const mismatch = await create(a.auth, [{ inventory_id: inventory.id, quantity: 3, seats: ['A5'] }])
    expect(mismatch.statusCode).toBe(400)
    const many = await create(a.auth, [{ inventory_id: inventory.id, seats: Array.from({ length: 21 }, (_, n) => `A${n + 1}`) }])
    expect(many.statusCode).toBe(400)
    expect(many.json().details[0].path).toBe('items.0.seats')
    const event = await createTestEvent(ctx.app, a.seller.id)
    const plain = await adm.post(`/events/${event.id}/inventories`, { date: dayFromToday(7), name: 'Pista', price: 1, capacity: 10 })
    const unseated = await create(a.auth, [{ inventory_id: plain.json().id, seats: ['A1'] }])
    expect(unseated.statusCode).toBe(400)
    // PATCH swaps seats atomically: a taken seat among them changes nothing.
    const other = await create(a.auth, [{ inventory_id: inventory.id, seats: ['A6'] }])
    const swap = await patch(a.auth, mine.json().id, [{ inventory_id: inventory.id, seats: ['A3', 'A6'] }])
    expect(swap.json()).toMatchObject({ code: 'seat_unavailable', details: { seats: ['A6'] } })
    expect(other.statusCode).toBe(201)
    const moved = await patch(a.auth, mine.json().id, [{ inventory_id: inventory.id, seats: ['A3', 'A4'] }])
    expect(moved.statusCode, moved.body).toBe(200)
    expect(seatIds(moved.json().items[0])).toEqual(['A3', 'A4'])
    const free = await create(a.auth, [{ inventory_id: inventory.id, seats: ['A2'] }])
    expect(free.statusCode).toBe(201)
  })

  it('refuses seats that strand one while the seller sets seating_no_orphans', async () => {
    const { inventory } = await seated(a, [{ category: 'Plateia', seats: 6 }])
    await ctx.app.db.update(sellers).set({ seatingNoOrphans: true }).where(eq(sellers.id, a.seller.id))
    try {
      const res = await create(a.auth, [{ inventory_id: inventory.id, seats: ['A2', 'A3'] }])
      expect(res.statusCode).toBe(409)
      expect(res.json()).toMatchObject({ code: 'seat_orphan', details: { seats: ['A1'] } })
      expect((await create(a.auth, [{ inventory_id: inventory.id, seats: ['A1', 'A2'] }])).statusCode).toBe(201)
    } finally {
      await ctx.app.db.update(sellers).set({ seatingNoOrphans: false }).where(eq(sellers.id, a.seller.id))
    }
  })
})

describe('a party (docs/seating.md): the best-available items of one inventory in one request', () => {
  const party = (inventoryId: string, full: number, half: number, together?: boolean) => [
    { inventory_id: inventoryId, variant: 'Inteira', quantity: full, ...(together === undefined ? {} : { together }) },
    { inventory_id: inventoryId, variant: 'Meia-entrada', quantity: half, ...(together === undefined ? {} : { together }) },
  ]
  const byVariant = (res: { json: () => { items: { variant: string; seats: { id: string }[] | null }[] } }) =>
    Object.fromEntries(res.json().items.map((item) => [item.variant, seatIds(item)]))

  it('sits together as one block, dealt to the items in the request’s order', async () => {
    const { inventory } = await seated(a, [{ category: 'Plateia', seats: 12 }], 'Plateia', { variants: PARTY_VARIANTS })
    const first = await create(a.auth, party(inventory.id, 2, 2))
    expect(first.statusCode, first.body).toBe(201)
    expect(byVariant(first)).toEqual({ Inteira: ['A5', 'A6'], 'Meia-entrada': ['A7', 'A8'] })
    // Picked item by item, 1 + 1 sat apart (A4 and A9); as one party, side by side.
    const second = await create(a.auth, party(inventory.id, 1, 1))
    expect(second.statusCode, second.body).toBe(201)
    expect(byVariant(second)).toEqual({ Inteira: ['A3'], 'Meia-entrada': ['A4'] })
  })

  it('is refused seats_not_together as a party, with the largest block, and sits anywhere with together false', async () => {
    const { event, inventory } = await seated(a, [{ category: 'Plateia', seats: 4, aisleAfter: [2] }], 'Plateia', { variants: PARTY_VARIANTS })
    const refused = await create(a.auth, party(inventory.id, 2, 1))
    expect(refused.statusCode, refused.body).toBe(409)
    expect(refused.json()).toMatchObject({ code: 'seats_not_together', details: { inventory_id: inventory.id, max_together: 2 } })
    expect(await counts(event.id, inventory.id)).toMatchObject({ held: 0, available: 4 })
    // No block of 3: the best-ranked free seats (nearest the middle first), dealt in the request's order.
    const apart = await create(a.auth, party(inventory.id, 2, 1, false))
    expect(apart.statusCode, apart.body).toBe(201)
    expect(byVariant(apart)).toEqual({ Inteira: ['A2', 'A3'], 'Meia-entrada': ['A1'] })
  })

  it('moves as one when a PATCH changes it, its own seats counting as free', async () => {
    const { inventory } = await seated(a, [{ category: 'Plateia', seats: 12 }], 'Plateia', { variants: PARTY_VARIANTS })
    const basket = await create(a.auth, party(inventory.id, 2, 2))
    expect(byVariant(basket)).toEqual({ Inteira: ['A5', 'A6'], 'Meia-entrada': ['A7', 'A8'] })
    const grown = await patch(a.auth, basket.json().id, party(inventory.id, 3, 3))
    expect(grown.statusCode, grown.body).toBe(200)
    expect(byVariant(grown)).toEqual({ Inteira: ['A4', 'A5', 'A6'], 'Meia-entrada': ['A7', 'A8', 'A9'] })
    // Another buyer takes A2-A3: a party of 10 finds 10 free seats (its own among them) but no block; the PATCH changes nothing.
    const other = await create(a.auth, [{ inventory_id: inventory.id, variant: 'Inteira', quantity: 2 }])
    expect(byVariant(other)).toEqual({ Inteira: ['A2', 'A3'] })
    const refused = await patch(a.auth, basket.json().id, party(inventory.id, 5, 5))
    expect(refused.json()).toMatchObject({ code: 'seats_not_together', details: { max_together: 9 } })
    const read = await ctx.app.inject({ method: 'GET', url: `/stf/v1/baskets/${basket.json().id}`, headers: a.auth })
    expect(byVariant(read)).toEqual({ Inteira: ['A4', 'A5', 'A6'], 'Meia-entrada': ['A7', 'A8', 'A9'] })
  })
})

describe('named and kept seats judged together (seating_no_orphans)', () => {
  const orphansOn = async () => {
    await ctx.app.db.update(sellers).set({ seatingNoOrphans: true }).where(eq(sellers.id, a.seller.id))
    return () => ctx.app.db.update(sellers).set({ seatingNoOrphans: false }).where(eq(sellers.id, a.seller.id))
  }

  it('never calls a seat the same request takes stranded, whatever the items’ order', async () => {
    const off = await orphansOn()
    try {
      for (const order of [
        ['Inteira', 'Meia-entrada'],
        ['Meia-entrada', 'Inteira'],
      ]) {
        const { inventory } = await seated(a, [{ category: 'Plateia', seats: 8 }], 'Plateia', { variants: PARTY_VARIANTS })
        const res = await create(a.auth, [
          { inventory_id: inventory.id, variant: order[0], seats: ['A2'] },
          { inventory_id: inventory.id, variant: order[1], seats: ['A1'] },
        ])
        expect(res.statusCode, res.body).toBe(201)
        // The seat between two the request takes is stranded, in either order.
        const between = await create(a.auth, [
          { inventory_id: inventory.id, variant: order[0], seats: ['A5'] },
          { inventory_id: inventory.id, variant: order[1], seats: ['A3'] },
        ])
        expect(between.json()).toMatchObject({ code: 'seat_orphan', details: { seats: ['A4'] } })
      }
    } finally {
      await off()
    }
  })

  it('judges the seats a basket keeps with those a PATCH names', async () => {
    const off = await orphansOn()
    try {
      const { inventory } = await seated(a, [{ category: 'Plateia', seats: 6 }], 'Plateia', { variants: PARTY_VARIANTS })
      const basket = await create(a.auth, [{ inventory_id: inventory.id, variant: 'Inteira', seats: ['A1'] }])
      expect(basket.statusCode, basket.body).toBe(201)
      // A3 beside the kept A1 strands A2.
      const apart = await patch(a.auth, basket.json().id, [{ inventory_id: inventory.id, variant: 'Meia-entrada', seats: ['A3'] }])
      expect(apart.statusCode, apart.body).toBe(409)
      expect(apart.json()).toMatchObject({ code: 'seat_orphan', details: { seats: ['A2'] } })
      // A2 beside the kept A1 strands nobody: A1 is the basket's own.
      const beside = await patch(a.auth, basket.json().id, [{ inventory_id: inventory.id, variant: 'Meia-entrada', seats: ['A2'] }])
      expect(beside.statusCode, beside.body).toBe(200)
      expect(beside.json().items.map((item: { seats: { id: string }[] }) => seatIds(item))).toEqual([['A1'], ['A2']])
    } finally {
      await off()
    }
  })
})

describe('seats held back for the waiting list', () => {
  it('read reserved in /seats, are drawn taken in seats.svg, and naming one is seat_unavailable', async () => {
    const { event, inventory } = await seated(a, [{ category: 'Plateia', seats: 4 }], 'Plateia', { waiting_list: true })
    const basket = await create(a.auth, [{ inventory_id: inventory.id, quantity: 4 }])
    expect(basket.statusCode, basket.body).toBe(201)
    const joined = await ctx.app.inject({
      method: 'POST',
      url: '/stf/v1/waiting-list',
      headers: a.auth,
      payload: { inventory_id: inventory.id, quantity: 3, email: `reserved-${Date.now()}@example.com` },
    })
    expect(joined.statusCode, joined.body).toBe(201)
    // Two seats come back; the head of the queue waits for three, so they are held back for it.
    const fewer = await patch(a.auth, basket.json().id, [{ inventory_id: inventory.id, quantity: 2 }])
    expect(seatIds(fewer.json().items[0])).toEqual(['A1', 'A2'])
    const map = await ctx.app.inject({ method: 'GET', url: `/stf/v1/events/${event.id}/seats`, headers: a.auth })
    expect(Object.fromEntries(map.json().seats.map((seat: { id: string; status: string }) => [seat.id, seat.status]))).toEqual({
      A1: 'taken',
      A2: 'taken',
      A3: 'reserved',
      A4: 'reserved',
    })
    const svg = await ctx.app.inject({ method: 'GET', url: `/stf/v1/events/${event.id}/seats.svg`, headers: a.auth })
    const drawn = Object.fromEntries([...svg.body.matchAll(/<circle id="seat-([^"]+)" data-seat="[^"]+" data-status="(\w+)"/g)].map((m) => [m[1], m[2]]))
    expect(drawn).toEqual({ A1: 'taken', A2: 'taken', A3: 'taken', A4: 'taken' })
    const named = await create(a.auth, [{ inventory_id: inventory.id, seats: ['A3'] }])
    expect(named.statusCode).toBe(409)
    expect(named.json()).toMatchObject({ code: 'seat_unavailable', details: { inventory_id: inventory.id, seats: ['A3'] } })
    // The holder keeps naming its own seats, but gets none of the reserved ones.
    const swap = await patch(a.auth, basket.json().id, [{ inventory_id: inventory.id, seats: ['A2', 'A3'] }])
    expect(swap.json()).toMatchObject({ code: 'seat_unavailable', details: { seats: ['A3'] } })
    const own = await patch(a.auth, basket.json().id, [{ inventory_id: inventory.id, seats: ['A2', 'A1'] }])
    expect(own.statusCode, own.body).toBe(200)
    expect(await counts(event.id, inventory.id)).toMatchObject({ held: 2 })
  })
})

describe('one seat, one holder', () => {
  it('lets exactly one of 50 baskets naming the same seat at once hold it', async () => {
    const { event, inventory } = await seated(a, [{ category: 'Plateia', seats: 10 }])
    const answers = await Promise.all(Array.from({ length: 50 }, () => create(a.auth, [{ inventory_id: inventory.id, seats: ['A5', 'A6'] }])))
    expect(answers.filter((res) => res.statusCode === 201)).toHaveLength(1)
    expect(answers.filter((res) => res.statusCode === 409).every((res) => res.json().code === 'seat_unavailable')).toBe(true)
    expect(answers.filter((res) => res.statusCode === 409)).toHaveLength(49)
    expect(await counts(event.id, inventory.id)).toMatchObject({ held: 2 })
  })

  it('sells the held seats at checkout, one valid ticket per seat, and frees them when voided', async () => {
    const { inventory } = await seated(a, [{ category: 'Plateia', seats: 4 }])
    const alice = await insertSignedInCustomer(ctx.app, a)
    const bob = await insertSignedInCustomer(ctx.app, a)
    const first = (await create(alice.headers, [{ inventory_id: inventory.id, seats: ['A1', 'A2'] }])).json()
    await expire(first.id)
    const second = await create(bob.headers, [{ inventory_id: inventory.id, seats: ['A2', 'A3'] }])
    expect(second.statusCode).toBe(201)
    expect((await checkout(first.id, alice.headers)).statusCode).toBe(410)
    const sold = await checkout(second.json().id, bob.headers)
    expect(sold.statusCode, sold.body).toBe(201)
    expect(sold.json().items[0].seats.map((seat: { id: string }) => seat.id)).toEqual(['A2', 'A3'])
    const rows = await ctx.app.db.select({ seatId: tickets.seatId }).from(tickets).where(eq(tickets.inventoryId, inventory.id))
    expect(rows.map((row) => row.seatId).sort()).toEqual(['A2', 'A3'])
    expect((await create(a.auth, [{ inventory_id: inventory.id, seats: ['A2'] }])).json().code).toBe('seat_unavailable')
    // Whatever the code above it does, the database sells a seat to one valid ticket.
    const [ticket] = await ctx.app.db.select().from(tickets).where(eq(tickets.inventoryId, inventory.id)).limit(1)
    await expect(
      ctx.app.db.insert(tickets).values({ ...ticket!, id: undefined, identifier: `${ticket!.identifier}x` } as typeof tickets.$inferInsert),
    ).rejects.toThrow()
    const voided = await ctx.app.db.update(tickets).set({ voidedAt: sql`now()` }).where(eq(tickets.id, ticket!.id)).returning()
    expect(voided).toHaveLength(1)
    expect((await create(a.auth, [{ inventory_id: inventory.id, seats: [ticket!.seatId!] }])).statusCode).toBe(201)
  })
})

describe('seats come back', () => {
  it('when an item is removed, an order cancelled, and a basket re-picks counting its own seats as free', async () => {
    const { inventory } = await seated(a, [{ category: 'Plateia', seats: 4 }])
    const customer = await insertSignedInCustomer(ctx.app, a)
    const basket = (await create(customer.headers, [{ inventory_id: inventory.id, quantity: 4 }])).json()
    expect(seatIds(basket.items[0])).toEqual(['A1', 'A2', 'A3', 'A4'])
    // Two best available again, its own seats counting as free: the middle two (2-3) would strand 1 and 4; 1-2 and 3-4 tie, the lower wins.
    const fewer = await patch(customer.headers, basket.id, [{ inventory_id: inventory.id, quantity: 2 }])
    expect(fewer.statusCode, fewer.body).toBe(200)
    expect(seatIds(fewer.json().items[0])).toEqual(['A1', 'A2'])
    expect((await create(a.auth, [{ inventory_id: inventory.id, seats: ['A3', 'A4'] }])).statusCode).toBe(201)
    const removed = await patch(customer.headers, basket.id, [{ inventory_id: inventory.id, quantity: 0 }])
    expect(removed.statusCode).toBe(200)
    const again = await patch(customer.headers, basket.id, [{ inventory_id: inventory.id, seats: ['A1', 'A2'] }])
    expect(again.statusCode, again.body).toBe(200)
    const order = await checkout(basket.id, customer.headers)
    expect(order.statusCode, order.body).toBe(201)
    expect(order.json().items[0].seats.map((seat: { id: string }) => seat.id)).toEqual(['A1', 'A2'])
    expect((await create(a.auth, [{ inventory_id: inventory.id, seats: ['A1'] }])).json().code).toBe('seat_unavailable')
    expect((await adm.post(`/orders/${order.json().id}/cancel`)).statusCode).toBe(200)
    expect((await create(a.auth, [{ inventory_id: inventory.id, seats: ['A1', 'A2'] }])).statusCode).toBe(201)
  })

  it('shows a lapsed basket’s seated items with seats null, whether another basket took its seats or not', async () => {
    const { event, inventory } = await seated(a, [{ category: 'Plateia', seats: 6 }])
    const general = await adm.post(`/events/${event.id}/inventories`, { date: dayFromToday(7), name: 'Pista', price: 3000, capacity: 10 })
    expect(general.statusCode, general.body).toBe(201)
    const read = async (id: string) => (await ctx.app.inject({ method: 'GET', url: `/stf/v1/baskets/${id}`, headers: a.auth })).json()
    const taken = (await create(a.auth, [{ inventory_id: inventory.id, seats: ['A1', 'A2'] }])).json()
    const left = (
      await create(a.auth, [
        { inventory_id: inventory.id, seats: ['A5', 'A6'] },
        { inventory_id: general.json().id, quantity: 1 },
      ])
    ).json()
    expect(seatIds((await read(left.id)).items[0])).toEqual(['A5', 'A6'])
    // The clock the holds are judged by (the database's) passes both holds' expiry.
    await expire(taken.id)
    await expire(left.id)
    expect((await create(a.auth, [{ inventory_id: inventory.id, seats: ['A2', 'A3'] }])).statusCode).toBe(201)
    expect(await read(taken.id)).toMatchObject({ status: 'expired', items: [{ inventory_id: inventory.id, quantity: 2, seats: null }] })
    expect(await read(left.id)).toMatchObject({
      status: 'expired',
      items: [
        { inventory_id: inventory.id, quantity: 2, seats: null },
        { inventory_id: general.json().id, quantity: 1, seats: null },
      ],
    })
  })

  it('refuses to sell seats a lapsed hold lost to another basket: the sale checks them under the locks', async () => {
    const { inventory } = await seated(a, [{ category: 'Plateia', seats: 4 }])
    const lapsed = (await create(a.auth, [{ inventory_id: inventory.id, seats: ['A1', 'A2'] }])).json()
    await expire(lapsed.id)
    expect((await create(a.auth, [{ inventory_id: inventory.id, seats: ['A2', 'A3'] }])).statusCode).toBe(201)
    // The sale of the lapsed basket, as a checkout that passed its expiry check a moment before sends it.
    const error = await ctx.app.db
      .execute(
        sql`select * from take_tickets(${a.seller.id}::uuid, array[${inventory.id}]::uuid[], array[2], ${lapsed.id}::uuid, null, null, null, true, false, null)`,
      )
      .catch((thrown: unknown) => thrown as { cause?: { code?: string; detail?: string } })
    const cause =
      (error as { cause?: { code?: string; detail?: string }; code?: string; detail?: string }).cause ?? (error as { code?: string; detail?: string })
    expect(cause.code).toBe('BX409')
    expect(JSON.parse(cause.detail!)[0].seats).toMatchObject({ unavailable: ['A2'] })
  })
})

describe('a rush on best available', () => {
  it('gives 20 of 30 concurrent buyers of 2 adjacent seats each, each seat once, and strands no seat', async () => {
    const { inventory } = await seated(a, [
      { category: 'Plateia', seats: 10 },
      { category: 'Plateia', seats: 10 },
      { category: 'Plateia', seats: 10 },
      { category: 'Plateia', seats: 10 },
    ])
    const answers = await Promise.all(Array.from({ length: 30 }, () => create(a.auth, [{ inventory_id: inventory.id, quantity: 2 }])))
    const won = answers.filter((res) => res.statusCode === 201)
    expect(won).toHaveLength(20)
    expect(answers.filter((res) => res.statusCode === 409).every((res) => res.json().code === 'insufficient_inventory')).toBe(true)
    const seats = won.flatMap((res) => seatIds(res.json().items[0])!)
    expect(new Set(seats).size).toBe(40)
    for (const res of won) {
      const [first, second] = res.json().items[0].seats as { row: string; number: string }[]
      expect(first!.row).toBe(second!.row)
      expect(Math.abs(Number(first!.number) - Number(second!.number))).toBe(1)
    }
  })
})

describe('parties in a rush', () => {
  type Answer = Awaited<ReturnType<typeof create>>
  const REFUSALS = ['seat_unavailable', 'seats_not_together', 'insufficient_inventory']

  /** Every seat held now, with its basket, as the back office lists them. */
  async function heldSeats(inventoryId: string) {
    const res = await adm.get(`/inventories/${inventoryId}/seats?status=held&limit=100`)
    expect(res.statusCode, res.body).toBe(200)
    return (res.json().data as { id: string; basket_id: string }[]).map((seat) => ({ id: seat.id, basket_id: seat.basket_id }))
  }

  /** The winners hold exactly what they were answered, each seat once; the refused hold nothing; every refusal is a seat or inventory code. */
  async function expectWholeHolds(inventoryId: string, answers: Answer[], before: { id: string; basket_id: string }[], codes = REFUSALS) {
    const refusals = answers.filter((res) => res.statusCode !== 201)
    expect(
      refusals.every((res) => res.statusCode === 409 && codes.includes(res.json().code)),
      JSON.stringify(refusals.map((res) => res.body)),
    ).toBe(true)
    const won = answers
      .filter((res) => res.statusCode === 201)
      .map((res) => res.json() as { id: string; items: { quantity: number; seats: { id: string }[] }[] })
    for (const basket of won) for (const item of basket.items) expect(item.seats).toHaveLength(item.quantity)
    const answered = [...before, ...won.flatMap((basket) => basket.items.flatMap((item) => item.seats.map((seat) => ({ id: seat.id, basket_id: basket.id }))))]
    expect(new Set(answered.map((seat) => seat.id)).size).toBe(answered.length)
    const held = await heldSeats(inventoryId)
    const sort = (seats: { id: string; basket_id: string }[]) => [...seats].sort((x, y) => x.id.localeCompare(y.id))
    expect(sort(held)).toEqual(sort(answered))
    return won
  }

  it('50 baskets naming overlapping seats of one party at once (seating_no_orphans on): each seat held once, each party whole or not at all', async () => {
    const { inventory } = await seated(a, [{ category: 'Plateia', seats: 20 }], 'Plateia', { variants: PARTY_VARIANTS })
    await ctx.app.db.update(sellers).set({ seatingNoOrphans: true }).where(eq(sellers.id, a.seller.id))
    try {
      // The half-price seat named after the two full-price ones it sits before: judged in the items' order, A1 was "stranded".
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, n) => {
          const k = 1 + ((n * 3) % 18)
          return create(a.auth, [
            { inventory_id: inventory.id, variant: 'Inteira', seats: [`A${k + 1}`, `A${k + 2}`] },
            { inventory_id: inventory.id, variant: 'Meia-entrada', seats: [`A${k}`] },
          ])
        }),
      )
      const won = await expectWholeHolds(inventory.id, answers, [], [...REFUSALS, 'seat_orphan'])
      expect(won.length).toBeGreaterThan(0)
      // A seat a request names is never one it strands.
      answers.forEach((res, n) => {
        if (res.json().code !== 'seat_orphan') return
        const k = 1 + ((n * 3) % 18)
        const named = [`A${k}`, `A${k + 1}`, `A${k + 2}`]
        expect((res.json().details.seats as string[]).filter((seat) => named.includes(seat))).toEqual([])
      })
    } finally {
      await ctx.app.db.update(sellers).set({ seatingNoOrphans: false }).where(eq(sellers.id, a.seller.id))
    }
  })

  it('50 best-available parties of 2 to 6 at once on a nearly full row: each sits as one block, each seat held once, the refused hold nothing', async () => {
    const { inventory } = await seated(a, [{ category: 'Plateia', seats: 40 }], 'Plateia', { variants: PARTY_VARIANTS })
    // Free islands of 3, 5, 2, 6 and 4 seats between taken ones: 20 free of 40.
    const free = new Set([2, 3, 4, 8, 9, 10, 11, 12, 15, 16, 20, 21, 22, 23, 24, 25, 30, 31, 32, 33])
    const taken = Array.from({ length: 40 }, (_, n) => n + 1).filter((n) => !free.has(n))
    const before = []
    for (const seats of [taken.slice(0, 10), taken.slice(10)]) {
      const res = await create(a.auth, [{ inventory_id: inventory.id, seats: seats.map((n) => `A${n}`) }])
      expect(res.statusCode, res.body).toBe(201)
      before.push(...seats.map((n) => ({ id: `A${n}`, basket_id: res.json().id as string })))
    }
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, n) => {
        const size = 2 + (n % 5)
        return create(a.auth, [
          { inventory_id: inventory.id, variant: 'Inteira', quantity: Math.ceil(size / 2) },
          { inventory_id: inventory.id, variant: 'Meia-entrada', quantity: Math.floor(size / 2) },
        ])
      }),
    )
    const won = await expectWholeHolds(inventory.id, answers, before)
    expect(won.length).toBeGreaterThan(0)
    // Each party one block of adjacent seats, dealt in the request's order.
    for (const basket of won) {
      const numbers = basket.items.flatMap((item) => item.seats.map((seat) => Number(seat.id.slice(1))))
      expect(numbers).toEqual(numbers.map((_, n) => numbers[0]! + n))
    }
  })
})

describe('a plan exported from pretix', () => {
  it('loads as it is, sells each category by one inventory on a date, and breaks rows at its aisle', async () => {
    const plan = JSON.parse(readFileSync(new URL('../fixtures/seating/pretix-theatre.json', import.meta.url), 'utf8'))
    const uploaded = await adm.post(`/sellers/${a.seller.id}/seating-plans`, { name: 'Teatro', plan })
    expect(uploaded.statusCode, uploaded.body).toBe(201)
    const event = await createTestEvent(ctx.app, a.seller.id)
    const inventory = (category: string) =>
      adm.post(`/events/${event.id}/inventories`, { date: dayFromToday(7), name: category, price: 5000, seating: { plan_id: uploaded.json().id, category } })
    const stalls = await inventory('Plateia')
    const balcony = await inventory('Balcão')
    expect([stalls.statusCode, balcony.statusCode]).toEqual([201, 201])
    expect([stalls.json().capacity, balcony.json().capacity]).toEqual([40, 16])
    // Rows of 10 with an aisle after seat 5: no 6 together, and 5 take one side whole (the lower of two equally central).
    const six = await create(a.auth, [{ inventory_id: stalls.json().id, quantity: 6 }])
    expect(six.json()).toMatchObject({ code: 'seats_not_together', details: { max_together: 5 } })
    const five = await create(a.auth, [{ inventory_id: stalls.json().id, quantity: 5 }])
    expect(seatIds(five.json().items[0])).toEqual(['stalls-A-1', 'stalls-A-2', 'stalls-A-3', 'stalls-A-4', 'stalls-A-5'])
    // A balcony seat is not a stalls seat.
    const wrong = await create(a.auth, [{ inventory_id: stalls.json().id, seats: [seatIds(five.json().items[0])![0]!.replace('stalls', 'balcony')] }])
    expect(wrong.statusCode).toBe(400)
  })
})
