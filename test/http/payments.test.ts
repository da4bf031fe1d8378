import { and, eq, inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { coupons } from '../../src/domain/coupons/coupons.table.js'
import { orders } from '../../src/domain/orders/orders.table.js'
import { payments, transactions } from '../../src/domain/payments/payments.table.js'
import { webhookEndpoints, webhookEvents } from '../../src/domain/webhooks/webhooks.table.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { useTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { type TestSeller, useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { ledgerViolations } from '../support/ledger-invariants.js'
import { createStaff } from '../support/staff.js'

/** docs/payments.md: orders awaiting payment, their payment, and their expiry. */
const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let staff: AdmClient

type Ticket = { identifier: string; status: string; code: string | null }
type Order = {
  id: string
  status: string
  payment_due_at: string | null
  paid_total: number
  refunded_total: number
  totals: { total: number }
  payments: { id: string; amount: number; reference: string | null }[]
  tickets: Ticket[]
}

beforeAll(async () => {
  staff = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })).auth)
  // Every event of seller a is recorded (an endpoint that wants them all), so the tests can read them.
  await ctx.app.db.insert(webhookEndpoints).values({ sellerId: a.seller.id, url: 'https://hooks.example.com/a', secretSalt: 'salt' })
})

// Whatever the tests did, the ledger adds up for every order.
afterAll(async () => expect(await ledgerViolations(ctx.app.db)).toEqual([]))

const newInventory = async (overrides: { capacity?: number; price?: number } = {}, seller: TestSeller = a) =>
  (await createTestInventory(ctx.app, await createTestEvent(ctx.app, seller.seller.id), { capacity: 10, price: 5000, ...overrides })).id

/** A checkout through the storefront, awaiting payment unless told otherwise. */
async function checkout(inventoryId: string, options: { quantity?: number; method?: string; await?: boolean; coupon?: string; seller?: TestSeller } = {}) {
  const customer = await insertSignedInCustomer(ctx.app, options.seller ?? a)
  const basket = await ctx.app.inject({
    method: 'POST',
    url: '/stf/v1/baskets',
    headers: customer.headers,
    payload: { items: [{ inventory_id: inventoryId, quantity: options.quantity ?? 2 }] },
  })
  expect(basket.statusCode).toBe(201)
  if (options.coupon) {
    const applied = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${basket.json().id}/coupon`,
      headers: customer.headers,
      payload: { code: options.coupon },
    })
    expect(applied.statusCode).toBe(200)
  }
  return ctx.app.inject({
    method: 'POST',
    url: `/stf/v1/baskets/${basket.json().id}/checkout`,
    headers: customer.headers,
    payload: { payment_method: options.method ?? 'pix', ...(options.await === false ? {} : { await_payment: true }) },
  })
}
const pending = async (inventoryId: string, options: Parameters<typeof checkout>[1] = {}) => {
  const res = await checkout(inventoryId, options)
  expect(res.statusCode).toBe(201)
  return res.json() as Order
}

const pay = (orderId: string, body: object, auth = a.auth) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/orders/${orderId}/payments`, headers: auth, payload: body })
const readOrder = async (orderId: string) => (await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${orderId}`, headers: a.auth })).json() as Order
const sold = async (inventoryId: string) =>
  (await ctx.app.db.select({ sold: inventories.sold }).from(inventories).where(eq(inventories.id, inventoryId)))[0]!.sold
/** Moves an order's deadline into the past: the clock the sweep reads is the database's. */
const makeDue = (orderId: string) => ctx.app.db.update(orders).set({ paymentDueAt: sql`now() - interval '1 second'` }).where(eq(orders.id, orderId))
const sweep = () => ctx.app.outbox.runOnce('order_expiry')
const emailsTo = (kind: string) => ctx.app.db.select().from(outboxEmails).where(eq(outboxEmails.kind, kind))
const eventsOf = async (type: string, orderId: string) =>
  (
    await ctx.app.db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.type, type), eq(webhookEvents.orderingKey, orderId)))
  ).length
const ledgerOf = (orderId: string) => ctx.app.db.select().from(transactions).where(eq(transactions.orderId, orderId)).orderBy(transactions.seq)
const paymentsOf = (orderId: string) => ctx.app.db.select().from(payments).where(eq(payments.orderId, orderId))

describe('a checkout awaiting payment', () => {
  it('places a pending order due in the seller’s minutes for its method, its tickets taken without codes', async () => {
    const inventoryId = await newInventory()
    const before = Date.now()
    const mailsBefore = (await emailsTo('stf.order_pending')).length
    const order = await pending(inventoryId)
    expect((await emailsTo('stf.order_pending')).length).toBe(mailsBefore + 1)
    expect(order).toMatchObject({ status: 'pending', paid_total: 0, refunded_total: 0, payments: [], totals: { total: 10000 } })
    const due = Date.parse(order.payment_due_at!)
    expect(due).toBeGreaterThanOrEqual(before + 29 * 60_000)
    expect(due).toBeLessThanOrEqual(Date.now() + 31 * 60_000)
    expect(order.tickets.map((t) => [t.status, t.code])).toEqual([
      ['pending', null],
      ['pending', null],
    ])
    expect(await sold(inventoryId)).toBe(2)
    expect(await eventsOf('order.pending', order.id)).toBe(1)
    expect(await eventsOf('order.confirmed', order.id)).toBe(0)
    // Nothing is sold or paid until the money comes.
    expect(await ledgerOf(order.id)).toEqual([])
    const boleto = await pending(inventoryId, { method: 'boleto', quantity: 1 })
    expect(Date.parse(boleto.payment_due_at!) - Date.parse(order.payment_due_at!)).toBeGreaterThan(4280 * 60_000)
  })

  it('answers 409 order_pending for its tickets’ images and PDF', async () => {
    const order = await pending(await newInventory())
    for (const url of [`/stf/v1/orders/${order.id}/tickets/${order.tickets[0]!.identifier}/qr.svg`, `/stf/v1/orders/${order.id}/tickets.pdf`]) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: a.auth })
      expect(res.statusCode).toBe(409)
      expect(res.json().code).toBe('order_pending')
    }
  })

  it('is confirmed at once when there is nothing to pay', async () => {
    const order = await pending(await newInventory({ price: 0 }))
    expect(order).toMatchObject({ status: 'confirmed', payment_due_at: null, paid_total: 0 })
    expect(order.tickets.every((t) => t.status === 'valid' && t.code !== null)).toBe(true)
  })

  it('without await_payment records the payment at once, and the ledger its sale', async () => {
    const res = await checkout(await newInventory(), { await: false })
    const order = res.json() as Order
    expect(order).toMatchObject({ status: 'confirmed', payment_due_at: null, paid_total: 10000 })
    expect(order.payments).toEqual([expect.objectContaining({ amount: 10000, reference: null })])
    expect((await ledgerOf(order.id)).map((row) => [row.kind, row.amount, row.tickets])).toEqual([
      ['sale', 10000, 2],
      ['payment', 10000, 0],
    ])
  })
})

describe('POST /stf/v1/orders/{id}/payments', () => {
  it('confirms a pending order: valid tickets with codes, the ledger, order.confirmed and the tickets’ email', async () => {
    const inventoryId = await newInventory()
    const order = await pending(inventoryId)
    const mailsBefore = (await emailsTo('stf.order_confirmed')).length
    const res = await pay(order.id, { amount: 10000, reference: 'E2E-1' })
    expect(res.statusCode).toBe(201)
    expect(res.json()).toMatchObject({ order_id: order.id, amount: 10000, method: 'pix', installments: 1, reference: 'E2E-1' })
    const paid = await readOrder(order.id)
    expect(paid).toMatchObject({ status: 'confirmed', paid_total: 10000, payment_due_at: order.payment_due_at })
    expect(paid.tickets.every((t) => t.status === 'valid' && typeof t.code === 'string')).toBe(true)
    expect((await ledgerOf(order.id)).map((row) => [row.kind, row.amount, row.tickets, row.paymentMethod])).toEqual([
      ['sale', 10000, 2, 'pix'],
      ['payment', 10000, 0, 'pix'],
    ])
    expect(await eventsOf('order.confirmed', order.id)).toBe(1)
    expect((await emailsTo('stf.order_confirmed')).length).toBe(mailsBefore + 1)
    expect(await sold(inventoryId)).toBe(2)
  })

  it('answers the same reference with the payment it recorded (200), and a new one on a paid order with 409 order_paid', async () => {
    const order = await pending(await newInventory())
    const first = await pay(order.id, { amount: 10000, reference: 'REF-A' })
    expect(first.statusCode).toBe(201)
    const again = await pay(order.id, { amount: 10000, reference: 'REF-A' })
    expect(again.statusCode).toBe(200)
    expect(again.json()).toEqual(first.json())
    const other = await pay(order.id, { amount: 10000, reference: 'REF-B' })
    expect(other.statusCode).toBe(409)
    expect(other.json().code).toBe('order_paid')
    expect(await paymentsOf(order.id)).toHaveLength(1)
  })

  it('refuses an amount other than what is owed with 409 amount_mismatch and the outstanding amount, recording nothing', async () => {
    const order = await pending(await newInventory())
    for (const amount of [9999, 10001]) {
      const res = await pay(order.id, { amount, reference: `R-${amount}` })
      expect(res.statusCode).toBe(409)
      expect(res.json()).toMatchObject({ code: 'amount_mismatch', details: { outstanding: 10000 } })
    }
    expect(await paymentsOf(order.id)).toEqual([])
    expect((await readOrder(order.id)).status).toBe('pending')
  })

  it('records another method as given', async () => {
    const order = await pending(await newInventory())
    const res = await pay(order.id, { amount: 10000, reference: 'CARD-1', method: 'credit_card' })
    expect(res.json()).toMatchObject({ method: 'credit_card', installments: 1 })
    expect((await ledgerOf(order.id)).every((row) => row.paymentMethod === 'credit_card')).toBe(true)
    const bad = await pay((await pending(await newInventory())).id, { amount: 10000, reference: 'X', method: 'cash' })
    expect(bad.statusCode).toBe(422)
    expect(bad.json().code).toBe('unsupported_payment_method')
  })

  it('answers another seller’s order and an unknown order with 404, recording nothing', async () => {
    const order = await pending(await newInventory())
    for (const [id, auth] of [
      [order.id, b.auth],
      ['00000000-0000-4000-8000-000000000000', a.auth],
    ] as const) {
      const res = await pay(id, { amount: 10000, reference: 'NOPE' }, auth)
      expect(res.statusCode).toBe(404)
      expect(res.json().code).toBe('not_found')
    }
    expect(await paymentsOf(order.id)).toEqual([])
  })

  it('refuses a zero, negative or fractional amount, a 10,000-character reference and unknown fields with 400', async () => {
    const order = await pending(await newInventory())
    for (const body of [
      { amount: 0, reference: 'R' },
      { amount: -10000, reference: 'R' },
      { amount: 100.5, reference: 'R' },
      { amount: 10000, reference: 'R'.repeat(10_000) },
      { amount: 10000, reference: '' },
      { amount: 10000 },
      { amount: 10000, reference: 'R', status: 'confirmed' },
    ]) {
      const res = await pay(order.id, body)
      expect(res.statusCode).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
    expect(await paymentsOf(order.id)).toEqual([])
  })

  it('refuses a payment of a cancelled order with 409 order_cancelled', async () => {
    const order = await pending(await newInventory())
    expect((await staff.post(`/orders/${order.id}/cancel`)).statusCode).toBe(200)
    const res = await pay(order.id, { amount: 10000, reference: 'AFTER-CANCEL' })
    expect(res.statusCode).toBe(409)
    expect(res.json().code).toBe('order_cancelled')
    expect(await paymentsOf(order.id)).toEqual([])
  })

  it('is listed by status in the back office, pending and expired included', async () => {
    const inventoryId = await newInventory()
    const waiting = await pending(inventoryId, { quantity: 1 })
    const lapsed = await pending(inventoryId, { quantity: 1 })
    await makeDue(lapsed.id)
    await sweep()
    for (const [status, id] of [
      ['pending', waiting.id],
      ['expired', lapsed.id],
    ] as const) {
      const res = await staff.get(`/sellers/${a.seller.id}/orders?status=${status}&limit=100`)
      expect(res.statusCode).toBe(200)
      const listed = res.json().data as Order[]
      expect(listed.every((order) => order.status === status)).toBe(true)
      expect(listed.map((order) => order.id)).toContain(id)
    }
  })

  it('is recorded by the back office too (money the seller received itself)', async () => {
    const order = await pending(await newInventory())
    const res = await staff.post(`/orders/${order.id}/payments`, { amount: 10000, reference: 'CASH-DESK-7' })
    expect(res.statusCode).toBe(201)
    expect((await readOrder(order.id)).status).toBe('confirmed')
  })

  it('confirms exactly once under 50 concurrent payments with different references; the rest 409 order_paid', async () => {
    const order = await pending(await newInventory())
    const answers = await Promise.all(Array.from({ length: 50 }, (_, n) => pay(order.id, { amount: 10000, reference: `RACE-${n}` })))
    expect(answers.filter((res) => res.statusCode === 201)).toHaveLength(1)
    expect(answers.filter((res) => res.statusCode === 409).every((res) => res.json().code === 'order_paid')).toBe(true)
    expect(answers.filter((res) => res.statusCode === 409)).toHaveLength(49)
    expect(await paymentsOf(order.id)).toHaveLength(1)
    expect(await eventsOf('order.confirmed', order.id)).toBe(1)
  })

  it('records one payment under 50 concurrent payments with the same reference', async () => {
    const order = await pending(await newInventory())
    const answers = await Promise.all(Array.from({ length: 50 }, () => pay(order.id, { amount: 10000, reference: 'SAME' })))
    expect(answers.filter((res) => res.statusCode === 201)).toHaveLength(1)
    expect(answers.filter((res) => res.statusCode === 200)).toHaveLength(49)
    expect(new Set(answers.map((res) => res.json().id)).size).toBe(1)
    expect(await paymentsOf(order.id)).toHaveLength(1)
  })
})

describe('expiry', () => {
  it('expires a due order within a sweep: tickets back on sale, coupon uses back, order.expired and the buyer’s email', async () => {
    const inventoryId = await newInventory()
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { maxUses: 5 })
    const order = await pending(inventoryId, { coupon: coupon.code })
    const uses = async () => (await ctx.app.db.select({ uses: coupons.uses }).from(coupons).where(eq(coupons.id, coupon.id)))[0]!.uses
    expect(await uses()).toBe(1)
    // Not due yet: the sweep leaves it.
    await sweep()
    expect((await readOrder(order.id)).status).toBe('pending')

    await makeDue(order.id)
    const mailsBefore = (await emailsTo('stf.order_expired')).length
    await sweep()
    const expired = await readOrder(order.id)
    expect(expired.status).toBe('expired')
    expect(expired.tickets.map((t) => [t.status, t.code])).toEqual([
      ['expired', null],
      ['expired', null],
    ])
    expect(await sold(inventoryId)).toBe(0)
    expect(await uses()).toBe(0)
    expect(await eventsOf('order.expired', order.id)).toBe(1)
    expect((await emailsTo('stf.order_expired')).length).toBe(mailsBefore + 1)
    expect(await ledgerOf(order.id)).toEqual([])

    // A second sweep finds nothing more to do.
    await sweep()
    expect(await eventsOf('order.expired', order.id)).toBe(1)
  })

  it('expires the orders of several sellers due at once in one sweep: each order one order.expired, to its own seller', async () => {
    await ctx.app.db.insert(webhookEndpoints).values({ sellerId: b.seller.id, url: 'https://hooks.example.com/b', secretSalt: 'salt' })
    const ofA = await newInventory()
    const ofB = await newInventory({}, b)
    const orderIds = [
      (await pending(ofA)).id,
      (await pending(ofB, { seller: b })).id,
      (await pending(ofA, { quantity: 1 })).id,
      (await pending(ofB, { seller: b, quantity: 3 })).id,
    ]
    for (const id of orderIds) await makeDue(id)
    await sweep()
    const events = await ctx.app.db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.type, 'order.expired'), inArray(webhookEvents.orderingKey, orderIds)))
    expect(events.map((event) => [event.orderingKey, event.sellerId, (event.payload as { id: string; status: string }).id]).sort()).toEqual(
      orderIds.map((id, n) => [id, n % 2 === 0 ? a.seller.id : b.seller.id, id]).sort(),
    )
    expect(events.every((event) => (event.payload as { status: string }).status === 'expired')).toBe(true)
    expect([await sold(ofA), await sold(ofB)]).toEqual([0, 0])
  })

  it('leaves a paid order alone however late its deadline', async () => {
    const order = await pending(await newInventory())
    expect((await pay(order.id, { amount: 10000, reference: 'ON-TIME' })).statusCode).toBe(201)
    await makeDue(order.id)
    await sweep()
    expect((await readOrder(order.id)).status).toBe('confirmed')
  })

  it('a late payment reactivates an expired order whose tickets are still there', async () => {
    const inventoryId = await newInventory()
    const order = await pending(inventoryId)
    await makeDue(order.id)
    await sweep()
    const res = await pay(order.id, { amount: 10000, reference: 'LATE' })
    expect(res.statusCode).toBe(201)
    const paid = await readOrder(order.id)
    expect(paid.status).toBe('confirmed')
    expect(paid.tickets.every((t) => t.status === 'valid' && t.code !== null)).toBe(true)
    expect(await sold(inventoryId)).toBe(2)
    expect(await eventsOf('order.confirmed', order.id)).toBe(1)
  })

  it('a late payment whose tickets were sold meanwhile: 409 order_expired and nothing recorded', async () => {
    const inventoryId = await newInventory({ capacity: 2 })
    const order = await pending(inventoryId)
    await makeDue(order.id)
    await sweep()
    // Someone else buys the tickets it gave back.
    expect((await checkout(inventoryId, { await: false })).statusCode).toBe(201)
    const res = await pay(order.id, { amount: 10000, reference: 'TOO-LATE' })
    expect(res.statusCode).toBe(409)
    expect(res.json().code).toBe('order_expired')
    expect(await paymentsOf(order.id)).toEqual([])
    expect((await readOrder(order.id)).status).toBe('expired')
    expect(await sold(inventoryId)).toBe(2)
  })

  it('a late payment whose coupon was used up meanwhile: 409 order_expired', async () => {
    const inventoryId = await newInventory()
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { maxUses: 1 })
    const order = await pending(inventoryId, { coupon: coupon.code })
    await makeDue(order.id)
    await sweep()
    expect((await checkout(inventoryId, { await: false, coupon: coupon.code })).statusCode).toBe(201)
    const res = await pay(order.id, { amount: order.totals.total, reference: 'COUPON-GONE' })
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 'order_expired', details: { reason: 'coupon_exhausted' } })
    expect(await sold(inventoryId)).toBe(2)
  })

  it('a payment racing the sweep has exactly one outcome', async () => {
    const inventoryId = await newInventory({ capacity: 2 })
    for (let round = 0; round < 5; round++) {
      const order = await pending(inventoryId)
      await makeDue(order.id)
      const [res] = await Promise.all([pay(order.id, { amount: 10000, reference: `RACE-${round}` }), sweep()])
      const after = await readOrder(order.id)
      // Paid before the sweep, or reactivated after it (the stock was free): either way confirmed with one payment and its tickets sold.
      expect(res.statusCode).toBe(201)
      expect(after.status).toBe('confirmed')
      expect(await paymentsOf(order.id)).toHaveLength(1)
      expect(await sold(inventoryId)).toBe(2)
      // Back to an empty inventory for the next round.
      expect((await staff.post(`/orders/${order.id}/cancel`)).statusCode).toBe(200)
    }
  })
})
