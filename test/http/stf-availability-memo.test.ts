import { sql, type SQL } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestCustomer } from '../factories/customers.js'
import { useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { createStaff } from '../support/staff.js'

// A reading is trusted for a minute at most here: whatever frees tickets sooner has to say so.
const ctx = useTestApp({ env: { AVAILABILITY_MEMO_MS: '60000' } })
const [a, b] = useTwoSellers(ctx)
let adm: AdmClient

beforeAll(async () => {
  adm = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.catalog.write', 'adm.orders.write'] })).auth)
})

const open = (headers: Record<string, string>, inventoryId: string, quantity = 1) =>
  ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items: [{ inventory_id: inventoryId, quantity }] } })

/** An inventory of `capacity` tickets, all held by one basket, and one refusal read from the database and remembered. */
async function soldOut(capacity = 2) {
  const event = await createTestEvent(ctx.app, a.seller.id)
  const inventory = await createTestInventory(ctx.app, event, { capacity })
  const holder = await open(a.auth, inventory.id, capacity)
  expect(holder.statusCode).toBe(201)
  const refused = await open(a.auth, inventory.id)
  expect(refused.statusCode).toBe(409)
  expect(refused.json()).toMatchObject({
    code: 'insufficient_inventory',
    details: [{ path: 'items.0.quantity', message: `0 left of inventory ${inventory.id}` }],
  })
  return { event, inventory, basketId: holder.json().id as string }
}

/** A change made behind the application's back, announcing nothing (triggers off for this transaction). */
const quietly = (statement: SQL) =>
  ctx.app.db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`)
    await tx.execute(statement)
  })

/** Opens baskets until one is accepted, for at most `ms`: answers how long it took. */
async function acceptedWithin(inventoryId: string, ms: number): Promise<number> {
  const started = Date.now()
  for (;;) {
    const res = await open(a.auth, inventoryId)
    if (res.statusCode === 201) return Date.now() - started
    expect(res.statusCode).toBe(409)
    if (Date.now() - started > ms) throw new Error(`still refused after ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('a rush on a sold-out inventory', () => {
  it('is refused from memory: a change that announces nothing is not seen', async () => {
    const { inventory } = await soldOut()
    await quietly(sql`update inventories set capacity = 10 where id = ${inventory.id}`)
    for (let n = 0; n < 3; n++) expect((await open(a.auth, inventory.id)).statusCode).toBe(409)
  })

  it('sees tickets freed by any process as soon as the database announces them', async () => {
    const { inventory } = await soldOut()
    // Another process's change: only the database's notice tells this one.
    await ctx.app.db.execute(sql`update inventories set capacity = 3 where id = ${inventory.id}`)
    expect(await acceptedWithin(inventory.id, 1000)).toBeLessThan(1000)
  })

  it('sees tickets this process freed on the very next call: an item removed, a capacity raised, an order cancelled, an event published again', async () => {
    const removed = await soldOut()
    const patched = await ctx.app.inject({
      method: 'PATCH',
      url: `/stf/v1/baskets/${removed.basketId}/items`,
      headers: a.auth,
      payload: { items: [{ inventory_id: removed.inventory.id, quantity: 1 }] },
    })
    expect(patched.statusCode).toBe(200)
    expect((await open(a.auth, removed.inventory.id)).statusCode).toBe(201)

    const raised = await soldOut()
    expect((await adm.put(`/inventories/${raised.inventory.id}`, { capacity: 3 })).statusCode).toBe(200)
    expect((await open(a.auth, raised.inventory.id)).statusCode).toBe(201)

    const bought = await soldOut()
    const alice = await createTestCustomer(ctx.app, a)
    const order = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${bought.basketId}/checkout`,
      headers: alice.headers,
      payload: { payment_method: 'pix' },
    })
    expect(order.statusCode).toBe(201)
    expect((await open(a.auth, bought.inventory.id)).statusCode).toBe(409)
    expect((await adm.post(`/orders/${order.json().id}/cancel`)).statusCode).toBe(200)
    expect((await open(a.auth, bought.inventory.id)).statusCode).toBe(201)

    const paused = await createTestEvent(ctx.app, a.seller.id, { status: 'draft' })
    const inventory = await createTestInventory(ctx.app, paused, { capacity: 5 })
    expect((await open(a.auth, inventory.id)).statusCode).toBe(404)
    expect((await adm.put(`/events/${paused.id}`, { status: 'published' })).statusCode).toBe(200)
    expect((await open(a.auth, inventory.id)).statusCode).toBe(201)
  })

  it('trusts a reading only until the first hold it counted runs out', async () => {
    const { inventory, basketId } = await soldOut()
    await ctx.app.db.execute(sql`update baskets set expires_at = now() + interval '1.5 seconds' where id = ${basketId}`)
    // Read again (the shortened hold was announced), remembered until that hold runs out.
    expect((await open(a.auth, inventory.id)).statusCode).toBe(409)
    const waited = await acceptedWithin(inventory.id, 5000)
    expect(waited).toBeGreaterThan(1000)
    expect(waited).toBeLessThan(5000)
  })

  it('answers another seller as if nothing were remembered: 404 for an inventory that is not theirs', async () => {
    const { inventory } = await soldOut()
    const res = await open(b.auth, inventory.id)
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe('not_found')
  })

  it('never holds more than the capacity when baskets race while tickets are freed', async () => {
    const { inventory, basketId } = await soldOut(10)
    const frees = ctx.app.inject({
      method: 'PATCH',
      url: `/stf/v1/baskets/${basketId}/items`,
      headers: a.auth,
      payload: { items: [{ inventory_id: inventory.id, quantity: 4 }] },
    })
    const rush = await Promise.all([frees, ...Array.from({ length: 40 }, () => open(a.auth, inventory.id))])
    expect(rush[0]!.statusCode).toBe(200)
    const accepted = rush.slice(1).filter((res) => res.statusCode === 201).length
    expect(accepted).toBeLessThanOrEqual(6)
    const { rows } = await ctx.app.db.execute<{ held: number }>(
      sql`select coalesce(sum(quantity), 0)::int as held from basket_items where inventory_id = ${inventory.id} and held_until > now()`,
    )
    expect(Number(rows[0]!.held)).toBe(4 + accepted)
    expect(Number(rows[0]!.held)).toBeLessThanOrEqual(10)
  })
})

describe('with AVAILABILITY_MEMO_MS=0', () => {
  const off = {} as { app: Awaited<ReturnType<typeof buildTestApp>> }
  beforeAll(async () => {
    off.app = await buildTestApp({ env: { AVAILABILITY_MEMO_MS: '0' } })
  })
  afterAll(async () => {
    await off.app.close()
  })

  it('asks the database on every call', async () => {
    const event = await createTestEvent(off.app, a.seller.id)
    const inventory = await createTestInventory(off.app, event, { capacity: 1 })
    const inject = () =>
      off.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: a.auth, payload: { items: [{ inventory_id: inventory.id, quantity: 1 }] } })
    expect((await inject()).statusCode).toBe(201)
    expect((await inject()).statusCode).toBe(409)
    await quietly(sql`update inventories set capacity = 2 where id = ${inventory.id}`)
    expect((await inject()).statusCode).toBe(201)
  })
})
