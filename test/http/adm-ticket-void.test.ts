import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { expectError } from '../support/customer-auth.js'
import { createStaff } from '../support/staff.js'

/** docs/selling.md: a cancelled order's tickets are void, and the back office voids single tickets. */
const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let writer: AdmClient
let reader: AdmClient
let eventId: string
let inventoryId: string

type Order = { id: string; totals: { total: number }; tickets: { identifier: string; status: string }[] }

beforeAll(async () => {
  writer = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })).auth)
  reader = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read'] })).auth)
  const event = await createTestEvent(ctx.app, a.seller.id)
  eventId = event.id
  inventoryId = (await createTestInventory(ctx.app, event, { capacity: 50, price: 5000 })).id
})

/** A checkout through the storefront, as a partner does it. */
async function buy(quantity: number): Promise<Order> {
  const customer = await insertSignedInCustomer(ctx.app, a)
  const basket = await ctx.app.inject({
    method: 'POST',
    url: '/stf/v1/baskets',
    headers: customer.headers,
    payload: { items: [{ inventory_id: inventoryId, quantity }] },
  })
  expect(basket.statusCode).toBe(201)
  const order = await ctx.app.inject({
    method: 'POST',
    url: `/stf/v1/baskets/${basket.json().id}/checkout`,
    headers: customer.headers,
    payload: { payment_method: 'pix' },
  })
  expect(order.statusCode).toBe(201)
  return order.json()
}

const sold = async () => (await ctx.app.db.select({ sold: inventories.sold }).from(inventories).where(eq(inventories.id, inventoryId)))[0]!.sold
const available = async () =>
  (await ctx.app.inject({ method: 'GET', url: `/stf/v1/events/${eventId}/availability`, headers: a.auth })).json().data[0].inventories[0].available
const download = (orderId: string, identifiers: string[]) =>
  ctx.app.inject({ method: 'POST', url: '/stf/v1/tickets/downloads', headers: a.auth, payload: { order_id: orderId, identifiers } })
const voidTicket = (client: AdmClient, orderId: string, identifier: string) => client.post(`/orders/${orderId}/tickets/${identifier}/void`)

describe('a cancelled order', () => {
  it('has voided tickets, which downloads never register and list in `voided`', async () => {
    const order = await buy(2)
    expect(order.tickets.map((t) => t.status)).toEqual(['valid', 'valid'])
    const ids = order.tickets.map((t) => t.identifier)
    const cancelled = await writer.post(`/orders/${order.id}/cancel`)
    expect(cancelled.statusCode).toBe(200)
    expect(cancelled.json().tickets.map((t: { status: string }) => t.status)).toEqual(['voided', 'voided'])

    const res = await download(order.id, [...ids, 'NOT-A-TICKET'])
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ registered: 0, first_access: [], unknown: ['NOT-A-TICKET'], voided: ids })
    // The storefront's view of the order says so too.
    const customerView = await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: a.auth })
    expect(customerView.json().tickets.map((t: { status: string }) => t.status)).toEqual(['voided', 'voided'])
  })
})

describe('POST /adm/v1/orders/{id}/tickets/{identifier}/void', () => {
  it('voids one ticket and puts it back on sale, with the totals unchanged and an audit entry', async () => {
    const order = await buy(3)
    const before = { sold: await sold(), available: await available() }
    const [first, second, third] = order.tickets.map((t) => t.identifier) as [string, string, string]

    const res = await voidTicket(writer, order.id, second)
    expect(res.statusCode).toBe(200)
    const body = res.json() as Order
    expect(body.totals).toEqual(order.totals)
    expect(body.tickets.map((t) => [t.identifier, t.status])).toEqual([
      [first, 'valid'],
      [second, 'voided'],
      [third, 'valid'],
    ])
    expect(await sold()).toBe(before.sold - 1)
    expect(await available()).toBe(before.available + 1)

    const downloads = await download(order.id, [first, second])
    expect(downloads.json()).toEqual({ registered: 1, first_access: [first], unknown: [], voided: [second] })

    const audit = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'adm.ticket.voided'), eq(auditLog.targetId, order.id)))
    expect(audit).toHaveLength(1)
    expect(audit[0]!.data).toMatchObject({ identifier: second, inventory_id: inventoryId })
  })

  it('changes nothing for a voided ticket, even asked many times at once', async () => {
    const order = await buy(2)
    const before = await sold()
    const [first] = order.tickets.map((t) => t.identifier) as [string]
    const answers = await Promise.all(Array.from({ length: 8 }, () => voidTicket(writer, order.id, first)))
    expect(answers.map((r) => r.statusCode)).toEqual(Array(8).fill(200))
    expect(await sold()).toBe(before - 1)
    const audit = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'adm.ticket.voided'), eq(auditLog.targetId, order.id)))
    expect(audit).toHaveLength(1)
  })

  it('and a cancellation together return each ticket to sale exactly once', async () => {
    const order = await buy(4)
    const before = await sold()
    const ids = order.tickets.map((t) => t.identifier)
    const answers = await Promise.all([...ids.map((id) => voidTicket(writer, order.id, id)), writer.post(`/orders/${order.id}/cancel`)])
    expect(answers.map((r) => r.statusCode)).toEqual(Array(5).fill(200))
    expect(await sold()).toBe(before - 4)
    // Cancelling again returns nothing more.
    expect((await writer.post(`/orders/${order.id}/cancel`)).statusCode).toBe(200)
    expect(await sold()).toBe(before - 4)
  })

  it('after a single void, cancelling the order returns only the tickets still valid', async () => {
    const order = await buy(3)
    const before = await sold()
    await voidTicket(writer, order.id, order.tickets[0]!.identifier)
    await writer.post(`/orders/${order.id}/cancel`)
    expect(await sold()).toBe(before - 3)
  })

  it('answers 404 for an identifier of another order, an unknown order or another seller’s ticket; 403 without adm.orders.write', async () => {
    const order = await buy(1)
    const other = await buy(1)
    expectError(await voidTicket(writer, order.id, other.tickets[0]!.identifier), 404, 'not_found')
    expectError(await voidTicket(writer, '00000000-0000-4000-8000-000000000000', order.tickets[0]!.identifier), 404, 'not_found')
    expectError(await voidTicket(writer, 'not-a-uuid', order.tickets[0]!.identifier), 400, 'validation_error')
    expectError(await voidTicket(reader, order.id, order.tickets[0]!.identifier), 403, 'forbidden')
    expect(b.seller.id).not.toBe(a.seller.id)
    expect((await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: b.auth })).statusCode).toBe(404)
  })
})
