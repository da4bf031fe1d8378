import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { orders, tickets } from '../../src/domain/orders/orders.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { checkOut, subscribeToEverything, type TestOrder } from '../factories/checkouts.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestSeller, type TestSeller, useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { expectError } from '../support/customer-auth.js'
import { ledgerViolations } from '../support/ledger-invariants.js'
import { auditOf, emailsAbout, ledgerOf, soldOf, webhookTypesOf } from '../support/order-records.js'
import { createStaff } from '../support/staff.js'

/** docs/payments.md: the buyer's withdrawal, POST /stf/v1/orders/{id}/cancel, judged on the database's clock. */
const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let writer: AdmClient
const HOUR = 3_600_000
const DAY = 24 * HOUR

beforeAll(async () => {
  writer = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })).auth)
  await subscribeToEverything(ctx.app, a.seller.id)
})

afterAll(async () => {
  expect(await ledgerViolations(ctx.app.db)).toEqual([])
})

/** An inventory of its own (so that moving its date moves nothing else), `days` from today (UTC). */
const newInventory = async (seller: TestSeller, days = 7, price = 5000) =>
  (await createTestInventory(ctx.app, await createTestEvent(ctx.app, seller.seller.id), { date: dayFromToday(days), price })).id

async function buy(seller: TestSeller, inventoryIds: string[], options: { awaitPayment?: boolean } = {}) {
  return checkOut(
    ctx.app,
    seller,
    inventoryIds.map((inventoryId) => ({ inventoryId, quantity: 2 })),
    options,
  )
}

const withdraw = (orderId: string, headers: Record<string, string>) => ctx.app.inject({ method: 'POST', url: `/stf/v1/orders/${orderId}/cancel`, headers })
/** Moves the purchase into the past, as time passing would. */
const purchasedAgo = async (orderId: string, ms: number) => {
  const [row] = await ctx.app.db
    .update(orders)
    .set({ createdAt: sql`now() - make_interval(secs => ${ms / 1000})` })
    .where(eq(orders.id, orderId))
    .returning({ createdAt: orders.createdAt })
  return row!.createdAt
}
const moveTo = (inventoryId: string, date: string) => ctx.app.db.update(inventories).set({ date }).where(eq(inventories.id, inventoryId))
const closedUntil = (res: { json: () => { details: { until: string } } }) => res.json().details.until

describe('POST /stf/v1/orders/{id}/cancel: within the window', () => {
  it('cancels the order, voids its tickets back on sale and leaves a pending refund of everything paid, with webhooks, email and audit', async () => {
    const inventoryId = await newInventory(a)
    const { order, customer } = await buy(a, [inventoryId])
    const before = await soldOf(ctx.app.db, inventoryId)
    const res = await withdraw(order.id, customer.headers)
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json() as TestOrder
    expect(body).toMatchObject({ id: order.id, status: 'cancelled', paid_total: 10000, refunded_total: 0 })
    expect(body).not.toHaveProperty('seller_id')
    expect(body.tickets.map((t) => t.status)).toEqual(['voided', 'voided'])
    expect(body.refunds).toHaveLength(1)
    expect(body.refunds[0]).toMatchObject({ amount: 10000, status: 'pending', reference: null, reason: 'Withdrawal by the buyer' })
    expect(body.refunds[0]!.tickets.sort()).toEqual(order.tickets.map((t) => t.identifier).sort())
    expect(await soldOf(ctx.app.db, inventoryId)).toBe(before - 2)
    expect((await ledgerOf(ctx.app.db, order.id)).map((row) => [row.kind, row.amount])).toEqual([
      ['sale', 10000],
      ['payment', 10000],
      ['void', -10000],
    ])
    expect(await webhookTypesOf(ctx.app.db, order.id)).toEqual(['order.confirmed', 'order.cancelled', 'refund.created'])
    expect(await emailsAbout(ctx.app.db, 'stf.order_refunded', order.id)).toHaveLength(1)
    const audit = await auditOf(ctx.app.db, 'stf.order.withdrawn', order.id)
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({ actorType: 'customer', actorId: customer.id, data: { refund_amount: 10000 } })

    // The partner executes it and says so.
    const confirmed = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/refunds/${body.refunds[0]!.id}/confirm`,
      headers: a.auth,
      payload: { reference: 'pix-devolucao-1' },
    })
    expect(confirmed.statusCode).toBe(200)
    expect((await ledgerOf(ctx.app.db, order.id)).map((row) => row.kind)).toEqual(['sale', 'payment', 'void', 'refund'])

    // Once cancelled, never again.
    expectError(await withdraw(order.id, customer.headers), 409, 'order_cancelled')
  })

  it('refunds what is left after earlier refunds, and is open until the last instant of the window', async () => {
    const { order, customer } = await buy(a, [await newInventory(a)])
    expect((await writer.post(`/orders/${order.id}/refunds`, { amount: 1500, reason: 'fee', reference: 'f' })).statusCode).toBe(201)
    // Six days and 23 hours ago: still within seven days.
    await purchasedAgo(order.id, 7 * DAY - HOUR)
    const res = await withdraw(order.id, customer.headers)
    expect(res.statusCode, res.body).toBe(200)
    expect((res.json() as TestOrder).refunds.map((r) => [r.amount, r.status])).toEqual([
      [1500, 'done'],
      [8500, 'pending'],
    ])
  })

  it('judges the cutoff by the tickets still valid: a voided ticket’s earlier date does not close it', async () => {
    const soon = await newInventory(a, 1)
    const later = await newInventory(a, 10)
    const { order, customer } = await buy(a, [soon, later])
    for (const ticket of order.tickets.filter((t) => t.inventory_id === soon)) {
      expect((await writer.post(`/orders/${order.id}/tickets/${ticket.identifier}/void`)).statusCode).toBe(200)
    }
    const res = await withdraw(order.id, customer.headers)
    expect(res.statusCode, res.body).toBe(200)
    // The refund is of everything left to refund: all that was paid, the voided tickets' share included.
    expect((res.json() as TestOrder).refunds.map((r) => r.amount)).toEqual([20000])
  })

  it('of an order awaiting payment simply ends it, whenever: cancelled, nothing to refund, nothing in the ledger', async () => {
    const inventoryId = await newInventory(a, 1)
    const { order, customer } = await buy(a, [inventoryId], { awaitPayment: true })
    await purchasedAgo(order.id, 30 * DAY)
    const before = await soldOf(ctx.app.db, inventoryId)
    const res = await withdraw(order.id, customer.headers)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ status: 'cancelled', paid_total: 0, refunds: [] })
    expect(await soldOf(ctx.app.db, inventoryId)).toBe(before - 2)
    expect(await ledgerOf(ctx.app.db, order.id)).toEqual([])
    expect(await webhookTypesOf(ctx.app.db, order.id)).toEqual(['order.pending', 'order.cancelled'])
  })
})

describe('POST /stf/v1/orders/{id}/cancel: outside the window, 409 withdrawal_closed with details.until', () => {
  it('seven days after the purchase: until is the purchase + 7 days, and nothing changes', async () => {
    const inventoryId = await newInventory(a, 30)
    const { order, customer } = await buy(a, [inventoryId])
    const purchased = await purchasedAgo(order.id, 7 * DAY + 60_000)
    const before = await soldOf(ctx.app.db, inventoryId)
    const res = await withdraw(order.id, customer.headers)
    expectError(res, 409, 'withdrawal_closed')
    expect(closedUntil(res)).toBe(new Date(purchased.getTime() + 7 * DAY).toISOString())
    expect(await soldOf(ctx.app.db, inventoryId)).toBe(before)
    const after = (await writer.get(`/orders/${order.id}`)).json() as TestOrder
    expect(after).toMatchObject({ status: 'confirmed', refunds: [] })
    expect(after.tickets.map((t) => t.status)).toEqual(['valid', 'valid'])
  })

  it('less than 48 hours before the earliest ticket’s date (00:00 in the seller’s time zone): until is that cutoff', async () => {
    const inventoryId = await newInventory(a, 7)
    const { order, customer } = await buy(a, [inventoryId])
    // The show moves to tomorrow: its cutoff, 48 h before tomorrow 00:00 in São Paulo (UTC−3), has passed.
    const tomorrow = dayFromToday(1)
    await moveTo(inventoryId, tomorrow)
    const res = await withdraw(order.id, customer.headers)
    expectError(res, 409, 'withdrawal_closed')
    expect(closedUntil(res)).toBe(new Date(Date.parse(`${tomorrow}T00:00:00-03:00`) - 48 * HOUR).toISOString())
  })

  it('until is the earlier of the two limits', async () => {
    const inventoryId = await newInventory(a, 7)
    const { order, customer } = await buy(a, [inventoryId])
    const purchased = await purchasedAgo(order.id, 10 * DAY)
    const inFiveDays = dayFromToday(5)
    await moveTo(inventoryId, inFiveDays)
    // The purchase's seven days ended three days ago; the cutoff is ahead.
    const res = await withdraw(order.id, customer.headers)
    expectError(res, 409, 'withdrawal_closed')
    expect(closedUntil(res)).toBe(new Date(purchased.getTime() + 7 * DAY).toISOString())
    expect(Date.parse(closedUntil(res))).toBeLessThan(Date.parse(`${inFiveDays}T00:00:00-03:00`) - 48 * HOUR)
  })

  it('reads the seller’s own settings: its time zone and cutoff hours', async () => {
    // Kiritimati is UTC+14 all year: a date's 00:00 there is 10:00 UTC the day before.
    const seller = await createTestSeller(ctx.app, { settings: { timezone: 'Pacific/Kiritimati', withdrawal_cutoff_hours: 96 } })
    const open = await buy(seller, [await newInventory(seller, 6)])
    expect((await withdraw(open.order.id, open.customer.headers)).statusCode).toBe(200)
    const inThreeDays = dayFromToday(3)
    const closed = await buy(seller, [await newInventory(seller, 3)])
    const res = await withdraw(closed.order.id, closed.customer.headers)
    expectError(res, 409, 'withdrawal_closed')
    expect(closedUntil(res)).toBe(new Date(Date.parse(`${inThreeDays}T00:00:00+14:00`) - 96 * HOUR).toISOString())
  })

  it('withdrawal_days 0 turns it off: closed at once, until the purchase itself', async () => {
    const seller = await createTestSeller(ctx.app, { settings: { withdrawal_days: 0 } })
    const { order, customer } = await buy(seller, [await newInventory(seller, 30)])
    const res = await withdraw(order.id, customer.headers)
    expectError(res, 409, 'withdrawal_closed')
    const [row] = await ctx.app.db.select({ createdAt: orders.createdAt }).from(orders).where(eq(orders.id, order.id))
    expect(closedUntil(res)).toBe(row!.createdAt.toISOString())
  })
})

describe('POST /stf/v1/orders/{id}/cancel: whose and which orders', () => {
  it('answers 404 for another customer’s order, another seller’s or an unknown one; 401 without a customer; 400 for a bad id', async () => {
    const { order, customer } = await buy(a, [await newInventory(a)])
    const stranger = await insertSignedInCustomer(ctx.app, a)
    const otherSellersBuyer = await insertSignedInCustomer(ctx.app, b)
    expectError(await withdraw(order.id, stranger.headers), 404, 'not_found')
    expectError(await withdraw(order.id, otherSellersBuyer.headers), 404, 'not_found')
    expectError(await withdraw('00000000-0000-4000-8000-000000000000', customer.headers), 404, 'not_found')
    expectError(await withdraw('not-a-uuid', customer.headers), 400, 'validation_error')
    expectError(await withdraw(order.id, a.auth), 401, 'unauthorized')
    // The customer's token with another seller's Basic credentials is no customer of that seller.
    expectError(await withdraw(order.id, { ...customer.headers, authorization: b.auth.authorization }), 401, 'invalid_token')
    expect(((await writer.get(`/orders/${order.id}`)).json() as TestOrder).status).toBe('confirmed')
  })

  it('answers 409 order_expired for an order that expired unpaid', async () => {
    const inventoryId = await newInventory(a)
    const { order, customer } = await buy(a, [inventoryId], { awaitPayment: true })
    // As the expiry does it: tickets voided and back on sale, the order expired.
    await ctx.app.db.transaction(async (tx) => {
      await tx.update(tickets).set({ voidedAt: sql`now()` }).where(eq(tickets.orderId, order.id))
      await tx.execute(sql`update inventories set sold = sold - 2 where id = ${inventoryId}`)
      await tx.update(orders).set({ status: 'expired', expiredAt: sql`now()` }).where(eq(orders.id, order.id))
    })
    expectError(await withdraw(order.id, customer.headers), 409, 'order_expired')
  })

  it('and the back office’s cancel at once end the order once, with one refund', async () => {
    const inventoryId = await newInventory(a)
    const { order, customer } = await buy(a, [inventoryId])
    const before = await soldOf(ctx.app.db, inventoryId)
    const [withdrawal, cancel] = await Promise.all([withdraw(order.id, customer.headers), writer.post(`/orders/${order.id}/cancel`)])
    expect(cancel.statusCode).toBe(200)
    if (withdrawal.statusCode !== 200) expectError(withdrawal, 409, 'order_cancelled')
    const after = (await writer.get(`/orders/${order.id}`)).json() as TestOrder
    expect(after.status).toBe('cancelled')
    expect(after.refunds.map((r) => [r.amount, r.status])).toEqual([[10000, 'pending']])
    expect(await soldOf(ctx.app.db, inventoryId)).toBe(before - 2)
  })
})
