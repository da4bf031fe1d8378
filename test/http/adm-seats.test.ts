import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createSeatedInventory, type TestRow } from '../factories/seating.js'
import { useTwoSellers, type TestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { createStaff } from '../support/staff.js'

/** The back office's seats of an inventory (docs/seating.md): their states and holders, and blocks. */
const ctx = useTestApp()
const [a] = useTwoSellers(ctx)
let adm: AdmClient
let reader: AdmClient

beforeAll(async () => {
  adm = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.catalog.read', 'adm.catalog.write'] })).auth)
  reader = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.catalog.read'] })).auth)
})

type Headers = Record<string, string>
type Item = { inventory_id: string; quantity?: number; seats?: string[] }
type AdmSeat = { id: string; status: string; basket_id: string | null; order_id: string | null; identifier: string | null }

const create = (headers: Headers, items: Item[]) => ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items } })
const block = (inventoryId: string, seats: string[], blocked = true) => adm.post(`/inventories/${inventoryId}/seats/block`, { seats, blocked })
const seatsOf = async (inventoryId: string, query = '') =>
  (await adm.get(`/inventories/${inventoryId}/seats${query}`)).json() as { data: AdmSeat[]; meta: unknown }
const counts = async (eventId: string, inventoryId: string) =>
  ((await adm.get(`/events/${eventId}/inventories`)).json().data as { id: string; available: number }[]).find((row) => row.id === inventoryId)!

const seated = (seller: TestSeller, rows: TestRow[]) => createSeatedInventory(ctx.app, adm, seller.seller.id, rows)

describe('GET /adm/v1/inventories/{id}/seats', () => {
  it('lists every seat in the plan’s order with its holder: the basket, or the order and ticket', async () => {
    const { inventory } = await seated(a, [{ category: 'Plateia', seats: 5 }])
    const customer = await insertSignedInCustomer(ctx.app, a)
    const bought = await create(customer.headers, [{ inventory_id: inventory.id, seats: ['A1'] }])
    const order = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${bought.json().id}/checkout`,
      headers: customer.headers,
      payload: { payment_method: 'pix' },
    })
    expect(order.statusCode, order.body).toBe(201)
    const held = await create(a.auth, [{ inventory_id: inventory.id, seats: ['A2'] }])
    expect(held.statusCode, held.body).toBe(201)
    expect((await block(inventory.id, ['A5'])).statusCode).toBe(200)

    const res = await reader.get(`/inventories/${inventory.id}/seats`)
    expect(res.statusCode, res.body).toBe(200)
    const { data, meta } = res.json()
    expect(meta).toEqual({ count: 5, limit: 20, page: 1, total: 5 })
    expect(data[0]).toEqual({
      id: 'A1',
      zone: 'Plateia',
      row: 'A',
      number: '1',
      category: 'Plateia',
      status: 'sold',
      basket_id: null,
      order_id: order.json().id,
      identifier: order.json().tickets[0].identifier,
    })
    expect(data[1]).toMatchObject({ id: 'A2', status: 'held', basket_id: held.json().id, order_id: null, identifier: null })
    expect(data.map((seat: AdmSeat) => [seat.id, seat.status])).toEqual([
      ['A1', 'sold'],
      ['A2', 'held'],
      ['A3', 'free'],
      ['A4', 'free'],
      ['A5', 'blocked'],
    ])
  })

  it('filters by status and pages', async () => {
    const { inventory } = await seated(a, [
      { category: 'Plateia', seats: 6 },
      { category: 'Plateia', seats: 6 },
    ])
    expect((await block(inventory.id, ['A1', 'B6'])).statusCode).toBe(200)
    expect((await seatsOf(inventory.id, '?status=blocked')).data.map((seat) => seat.id)).toEqual(['A1', 'B6'])
    const free = await seatsOf(inventory.id, '?status=free&limit=4&page=3')
    expect(free.data.map((seat) => seat.id)).toEqual(['B4', 'B5'])
    expect(free.meta).toEqual({ count: 2, limit: 4, page: 3, total: 10 })
    expect((await seatsOf(inventory.id, '?status=sold')).data).toEqual([])
    expect((await adm.get(`/inventories/${inventory.id}/seats?status=taken`)).statusCode).toBe(400)
  })

  it('answers 404 for no such inventory and no seats for an unseated one', async () => {
    expect((await adm.get('/inventories/00000000-0000-4000-8000-000000000000/seats')).statusCode).toBe(404)
    const unseated = await createTestInventory(ctx.app, await createTestEvent(ctx.app, a.seller.id))
    expect(await seatsOf(unseated.id)).toEqual({ data: [], meta: { count: 0, limit: 20, page: 1, total: 0 } })
  })
})

describe('POST /adm/v1/inventories/{id}/seats/block', () => {
  it('blocks seats: available drops by them, best available skips them, a named one is unavailable', async () => {
    const { event, inventory } = await seated(a, [{ category: 'Plateia', seats: 5 }])
    expect((await counts(event.id, inventory.id)).available).toBe(5)
    const res = await block(inventory.id, ['A3', 'A2', 'A3'])
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      data: [
        { id: 'A2', zone: 'Plateia', row: 'A', number: '2', category: 'Plateia' },
        { id: 'A3', zone: 'Plateia', row: 'A', number: '3', category: 'Plateia' },
      ],
    })
    expect((await counts(event.id, inventory.id)).available).toBe(3)
    const [row] = await ctx.app.db.select({ seatsBlocked: inventories.seatsBlocked }).from(inventories).where(eq(inventories.id, inventory.id))
    expect(row!.seatsBlocked).toBe(2)
    // Blocking again changes nothing.
    expect((await block(inventory.id, ['A2'])).statusCode).toBe(200)
    expect((await counts(event.id, inventory.id)).available).toBe(3)

    const named = await create(a.auth, [{ inventory_id: inventory.id, seats: ['A2'] }])
    expect(named.statusCode).toBe(409)
    expect(named.json()).toMatchObject({ code: 'seat_unavailable', details: { seats: ['A2'] } })
    const best = await create(a.auth, [{ inventory_id: inventory.id, quantity: 2 }])
    expect(best.statusCode, best.body).toBe(201)
    expect(best.json().items[0].seats.map((seat: { id: string }) => seat.id)).toEqual(['A4', 'A5'])

    const audit = await ctx.app.db
      .select({ data: auditLog.data })
      .from(auditLog)
      .where(and(eq(auditLog.action, 'adm.inventory.seats_blocked'), eq(auditLog.targetId, inventory.id)))
    expect(audit.map((entry) => entry.data)).toContainEqual({ seats: ['A3', 'A2'] })
  })

  it('unblocks seats: they sell again and available rises', async () => {
    const { event, inventory } = await seated(a, [{ category: 'Plateia', seats: 2 }])
    expect((await block(inventory.id, ['A1', 'A2'])).statusCode).toBe(200)
    expect((await counts(event.id, inventory.id)).available).toBe(0)
    expect((await create(a.auth, [{ inventory_id: inventory.id, quantity: 1 }])).json().code).toBe('insufficient_inventory')
    const res = await block(inventory.id, ['A1'], false)
    expect(res.statusCode, res.body).toBe(200)
    expect((await counts(event.id, inventory.id)).available).toBe(1)
    const held = await create(a.auth, [{ inventory_id: inventory.id, quantity: 1 }])
    expect(held.statusCode, held.body).toBe(201)
    expect(held.json().items[0].seats[0].id).toBe('A1')
    const entries = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'adm.inventory.seats_unblocked'), eq(auditLog.targetId, inventory.id)))
    expect(entries).toHaveLength(1)
  })

  it('refuses to block a held or a sold seat with seat_unavailable, changing nothing', async () => {
    const { event, inventory } = await seated(a, [{ category: 'Plateia', seats: 4 }])
    const customer = await insertSignedInCustomer(ctx.app, a)
    const bought = await create(customer.headers, [{ inventory_id: inventory.id, seats: ['A1'] }])
    const sold = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${bought.json().id}/checkout`,
      headers: customer.headers,
      payload: { payment_method: 'pix' },
    })
    expect(sold.statusCode, sold.body).toBe(201)
    expect((await create(a.auth, [{ inventory_id: inventory.id, seats: ['A2'] }])).statusCode).toBe(201)
    const res = await block(inventory.id, ['A4', 'A2', 'A1'])
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 'seat_unavailable', details: { seats: ['A1', 'A2'] } })
    expect((await seatsOf(inventory.id, '?status=blocked')).data).toEqual([])
    expect((await counts(event.id, inventory.id)).available).toBe(2)
  })

  it('answers 400 naming each seat the inventory does not sell, 404 for no inventory, and checks the body', async () => {
    const { inventory } = await seated(a, [
      { category: 'Plateia', seats: 2 },
      { category: 'Balcão', seats: 2 },
    ])
    const res = await block(inventory.id, ['A1', 'B1', 'Z9'])
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'seats.1' }, { path: 'seats.2' }] })
    expect((await seatsOf(inventory.id, '?status=blocked')).data).toEqual([])
    expect((await block('00000000-0000-4000-8000-000000000000', ['A1'])).statusCode).toBe(404)
    expect((await block(inventory.id, [])).statusCode).toBe(400)
    expect(
      (
        await block(
          inventory.id,
          Array.from({ length: 1001 }, (_, i) => `S${i}`),
        )
      ).statusCode,
    ).toBe(400)
    expect((await adm.post(`/inventories/${inventory.id}/seats/block`, { seats: ['A1'] })).statusCode).toBe(400)
    expect((await reader.post(`/inventories/${inventory.id}/seats/block`, { seats: ['A1'], blocked: true })).statusCode).toBe(403)
    const unseated = await createTestInventory(ctx.app, await createTestEvent(ctx.app, a.seller.id))
    expect((await block(unseated.id, ['A1'])).json()).toMatchObject({ code: 'validation_error', details: [{ path: 'seats.0' }] })
  })
})
