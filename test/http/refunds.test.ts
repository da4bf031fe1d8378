import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { orders, tickets } from '../../src/domain/orders/orders.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { checkOut, subscribeToEverything, type TestOrder } from '../factories/checkouts.js'
import { useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { expectError } from '../support/customer-auth.js'
import { ledgerViolations } from '../support/ledger-invariants.js'
import { auditOf, emailsAbout, ledgerOf, soldOf, webhookPayloadsOf, webhookTypesOf } from '../support/order-records.js'
import { createStaff } from '../support/staff.js'

/** docs/payments.md: refunds, their confirmation, and the back office's cancel and void as they touch money and the ledger. */
const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let writer: AdmClient
let reader: AdmClient
let inventoryId: string
let otherInventoryId: string

type Refund = {
  id: string
  order_id: string
  amount: number
  tickets: string[]
  reason: string
  status: string
  reference: string | null
  done_at: string | null
}

beforeAll(async () => {
  writer = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })).auth)
  reader = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read'] })).auth)
  const event = await createTestEvent(ctx.app, a.seller.id)
  inventoryId = (await createTestInventory(ctx.app, event, { capacity: 1000, price: 5000 })).id
  otherInventoryId = (await createTestInventory(ctx.app, event, { capacity: 1000, price: 3000, name: 'Balcony' })).id
  await subscribeToEverything(ctx.app, a.seller.id)
})

afterAll(async () => {
  expect(await ledgerViolations(ctx.app.db)).toEqual([])
})

const buy = async (quantity: number, options: { awaitPayment?: boolean } = {}) => (await checkOut(ctx.app, a, [{ inventoryId, quantity }], options)).order
const refund = (orderId: string, body: Record<string, unknown>, client: AdmClient = writer) => client.post(`/orders/${orderId}/refunds`, body)
const readOrder = async (orderId: string): Promise<TestOrder> => (await writer.get(`/orders/${orderId}`)).json()
const stfConfirm = (refundId: string, reference: string, auth = a.auth) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/refunds/${refundId}/confirm`, headers: auth, payload: { reference } })

describe('POST /adm/v1/orders/{id}/refunds', () => {
  it('with a reference: done at once, booked in the ledger and refunded_total, with both webhooks, the buyer’s email and an audit entry', async () => {
    const order = await buy(2)
    const res = await refund(order.id, { amount: 2500, reason: 'Service fee returned', reference: 'rf-1' })
    expect(res.statusCode, res.body).toBe(201)
    const body = res.json() as Refund
    expect(body).toMatchObject({ order_id: order.id, amount: 2500, tickets: [], reason: 'Service fee returned', status: 'done', reference: 'rf-1' })
    expect(Object.keys(body).sort()).toEqual(['amount', 'created_at', 'done_at', 'id', 'order_id', 'reason', 'reference', 'status', 'tickets'])
    expect(body.done_at).not.toBeNull()

    const after = await readOrder(order.id)
    expect(after).toMatchObject({ status: 'confirmed', paid_total: 10000, refunded_total: 2500 })
    expect(after.tickets.map((t) => t.status)).toEqual(['valid', 'valid'])
    expect(after.refunds).toEqual([body])
    expect((await ledgerOf(ctx.app.db, order.id)).map((row) => [row.kind, row.amount])).toEqual([
      ['sale', 10000],
      ['payment', 10000],
      ['refund', -2500],
    ])
    expect(await webhookTypesOf(ctx.app.db, order.id)).toEqual(['order.confirmed', 'refund.created', 'refund.done'])
    expect(await webhookPayloadsOf(ctx.app.db, order.id, 'refund.done')).toEqual([body])
    const emails = await emailsAbout(ctx.app.db, 'stf.order_refunded', order.id)
    expect(emails).toHaveLength(1)
    expect(emails[0]!.text).toContain('25,00')
    const audit = await auditOf(ctx.app.db, 'adm.refund.created', order.id)
    expect(audit).toHaveLength(1)
    expect(audit[0]!.data).toMatchObject({ refund_id: body.id, amount: 2500, status: 'done' })
  })

  it('without a reference: pending, nothing in the ledger until it is confirmed; confirming again answers it unchanged', async () => {
    const order = await buy(1)
    const res = await refund(order.id, { amount: 1000, reason: 'Goodwill' })
    expect(res.statusCode, res.body).toBe(201)
    const pending = res.json() as Refund
    expect(pending).toMatchObject({ status: 'pending', reference: null, done_at: null })
    expect((await ledgerOf(ctx.app.db, order.id)).map((row) => row.kind)).toEqual(['sale', 'payment'])
    expect((await readOrder(order.id)).refunded_total).toBe(0)
    expect(await webhookTypesOf(ctx.app.db, order.id)).toEqual(['order.confirmed', 'refund.created'])

    const confirmed = await writer.post(`/refunds/${pending.id}/confirm`, { reference: 'pix-back-1' })
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    const done = confirmed.json() as Refund
    expect(done).toMatchObject({ id: pending.id, status: 'done', reference: 'pix-back-1', amount: 1000 })
    expect((await readOrder(order.id)).refunded_total).toBe(1000)
    expect((await ledgerOf(ctx.app.db, order.id)).map((row) => [row.kind, row.amount, row.refundId])).toEqual([
      ['sale', 5000, null],
      ['payment', 5000, null],
      ['refund', -1000, pending.id],
    ])
    expect(await webhookTypesOf(ctx.app.db, order.id)).toEqual(['order.confirmed', 'refund.created', 'refund.done'])

    // Again, with the same or another reference, from either side: the refund as it is, nothing booked twice.
    const again = await writer.post(`/refunds/${pending.id}/confirm`, { reference: 'another' })
    expect(again.statusCode).toBe(200)
    expect(again.json()).toEqual(done)
    const viaStorefront = await stfConfirm(pending.id, 'pix-back-1')
    expect(viaStorefront.statusCode).toBe(200)
    expect(viaStorefront.json()).toEqual(done)
    expect((await readOrder(order.id)).refunded_total).toBe(1000)
    expect((await ledgerOf(ctx.app.db, order.id)).filter((row) => row.kind === 'refund')).toHaveLength(1)
    expect(await webhookTypesOf(ctx.app.db, order.id)).toEqual(['order.confirmed', 'refund.created', 'refund.done'])
  })

  it('never gives back more than is left, counting pending refunds: 409 refund_exceeds_paid with details.refundable', async () => {
    const order = await buy(2)
    expect((await refund(order.id, { amount: 6000, reason: 'first', reference: 'r1' })).statusCode).toBe(201)
    expect((await refund(order.id, { amount: 3000, reason: 'second' })).statusCode).toBe(201)
    const over = await refund(order.id, { amount: 1001, reason: 'third' })
    expectError(over, 409, 'refund_exceeds_paid')
    expect(over.json().details).toEqual({ refundable: 1000 })
    expect((await refund(order.id, { amount: 1000, reason: 'last', reference: 'r3' })).statusCode).toBe(201)
    expectError(await refund(order.id, { amount: 1, reason: 'nothing left' }), 409, 'refund_exceeds_paid')
    // Everything left was refunded, and nothing named: the order ended with the last one.
    expect((await readOrder(order.id)).status).toBe('cancelled')
  })

  it('of an order awaiting payment, or of a free order: nothing was paid, 409 refund_exceeds_paid', async () => {
    const pending = await buy(1, { awaitPayment: true })
    expect(pending.status).toBe('pending')
    expectError(await refund(pending.id, { amount: 1, reason: 'x' }), 409, 'refund_exceeds_paid')
    expectError(await refund(pending.id, { amount: 1, reason: 'x', tickets: [pending.tickets[0]!.identifier] }), 409, 'refund_exceeds_paid')
    const freeInventory = await createTestInventory(ctx.app, await createTestEvent(ctx.app, a.seller.id), { price: 0 })
    const free = (await checkOut(ctx.app, a, [{ inventoryId: freeInventory.id, quantity: 1 }])).order
    expect(free).toMatchObject({ status: 'confirmed', paid_total: 0 })
    expectError(await refund(free.id, { amount: 1, reason: 'x' }), 409, 'refund_exceeds_paid')
  })

  it('voids the tickets it names at once: back on sale, voided in the ledger, ticket.voided; the order stays confirmed', async () => {
    const order = await buy(3)
    const before = await soldOf(ctx.app.db, inventoryId)
    const [first, second, third] = order.tickets.map((t) => t.identifier) as [string, string, string]
    const res = await refund(order.id, { amount: 4000, tickets: [second], reason: 'Could not attend' })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json()).toMatchObject({ amount: 4000, tickets: [second], status: 'pending' })
    expect(await soldOf(ctx.app.db, inventoryId)).toBe(before - 1)
    const after = await readOrder(order.id)
    expect(after.status).toBe('confirmed')
    expect(after.tickets.map((t) => [t.identifier, t.status])).toEqual([
      [first, 'valid'],
      [second, 'voided'],
      [third, 'valid'],
    ])
    // The void is the ticket's share of its sale (5000), whatever the refund's amount.
    expect((await ledgerOf(ctx.app.db, order.id)).map((row) => [row.kind, row.amount, row.tickets])).toEqual([
      ['sale', 15000, 3],
      ['payment', 15000, 0],
      ['void', -5000, -1],
    ])
    expect(await webhookTypesOf(ctx.app.db, order.id)).toEqual(['order.confirmed', 'ticket.voided', 'refund.created'])
  })

  it('refuses tickets it cannot pay back: another order’s or unknown (404), voided already (409 ticket_voided), and changes nothing', async () => {
    const order = await buy(2)
    const other = await buy(1)
    const [first, second] = order.tickets.map((t) => t.identifier) as [string, string]
    const unknown = await refund(order.id, { amount: 100, tickets: [first, other.tickets[0]!.identifier, 'NOPE'], reason: 'x' })
    expectError(unknown, 404, 'not_found')
    expect(unknown.json().details).toEqual([
      { path: 'tickets.1', message: expect.any(String) },
      { path: 'tickets.2', message: expect.any(String) },
    ])
    expect((await writer.post(`/orders/${order.id}/tickets/${second}/void`)).statusCode).toBe(200)
    const voided = await refund(order.id, { amount: 100, tickets: [first, second], reason: 'x' })
    expectError(voided, 409, 'ticket_voided')
    expect(voided.json().details).toEqual({ tickets: [second] })
    const after = await readOrder(order.id)
    expect(after.refunds).toEqual([])
    expect(after.tickets.find((t) => t.identifier === first)!.status).toBe('valid')
    // A refund retried after it went through is refused rather than paid twice.
    expect((await refund(order.id, { amount: 100, tickets: [first], reason: 'x' })).statusCode).toBe(201)
    expectError(await refund(order.id, { amount: 100, tickets: [first], reason: 'x' }), 409, 'ticket_voided')
  })

  it('of everything left without tickets cancels the order: its tickets back on sale and voided in the ledger, order.cancelled', async () => {
    const order = (
      await checkOut(ctx.app, a, [
        { inventoryId, quantity: 2 },
        { inventoryId: otherInventoryId, quantity: 1 },
      ])
    ).order
    const before = [await soldOf(ctx.app.db, inventoryId), await soldOf(ctx.app.db, otherInventoryId)]
    const res = await refund(order.id, { amount: order.totals.total, reason: 'Event moved', reference: 'all-back' })
    expect(res.statusCode, res.body).toBe(201)
    const body = res.json() as Refund
    expect(body.tickets.sort()).toEqual(order.tickets.map((t) => t.identifier).sort())
    expect([await soldOf(ctx.app.db, inventoryId), await soldOf(ctx.app.db, otherInventoryId)]).toEqual([before[0]! - 2, before[1]! - 1])
    const after = await readOrder(order.id)
    expect(after).toMatchObject({ status: 'cancelled', paid_total: 13000, refunded_total: 13000 })
    expect(after.tickets.map((t) => t.status)).toEqual(['voided', 'voided', 'voided'])
    const ledger = await ledgerOf(ctx.app.db, order.id)
    expect(ledger.map((row) => row.kind)).toEqual(['sale', 'sale', 'payment', 'void', 'void', 'refund'])
    expect(ledger.reduce((sum, row) => sum + (row.kind === 'sale' || row.kind === 'void' ? row.amount : 0), 0)).toBe(0)
    expect(await webhookTypesOf(ctx.app.db, order.id)).toEqual(['order.confirmed', 'order.cancelled', 'refund.created', 'refund.done'])
  })

  it('of less than everything, without tickets, moves money only', async () => {
    const order = await buy(2)
    expect((await refund(order.id, { amount: 9999, reason: 'Almost all' })).statusCode).toBe(201)
    const after = await readOrder(order.id)
    expect(after.status).toBe('confirmed')
    expect(after.tickets.map((t) => t.status)).toEqual(['valid', 'valid'])
  })

  it('refuses bad input with 400: amount 0, negative, fractional or a string, a reference over 255, no reason, unknown fields, bad tickets', async () => {
    const order = await buy(1)
    const identifier = order.tickets[0]!.identifier
    const bad: Record<string, unknown>[] = [
      { amount: 0, reason: 'x' },
      { amount: -100, reason: 'x' },
      { amount: 10.5, reason: 'x' },
      { amount: '100', reason: 'x' },
      { reason: 'x' },
      { amount: 100 },
      { amount: 100, reason: '' },
      { amount: 100, reason: 'x', reference: 'r'.repeat(10_000) },
      { amount: 100, reason: 'x', reference: '' },
      { amount: 100, reason: 'x', tickets: [] },
      { amount: 100, reason: 'x', tickets: [identifier, identifier] },
      { amount: 100, reason: 'x', tickets: 'all' },
      { amount: 100, reason: 'x', extra: true },
    ]
    for (const body of bad) expectError(await refund(order.id, body), 400, 'validation_error')
    expectError(await writer.post('/orders/not-a-uuid/refunds', { amount: 100, reason: 'x' }), 400, 'validation_error')
    expect((await readOrder(order.id)).refunds).toEqual([])
  })

  it('answers 404 for an unknown order, 403 without adm.orders.write, 401 without a token', async () => {
    const order = await buy(1)
    expectError(await refund('00000000-0000-4000-8000-000000000000', { amount: 1, reason: 'x' }), 404, 'not_found')
    expectError(await refund(order.id, { amount: 1, reason: 'x' }, reader), 403, 'forbidden')
    expectError(await refund(order.id, { amount: 1, reason: 'x' }, admClient(ctx.app, {})), 401, 'unauthorized')
  })

  it('never exceeds what was paid, however many arrive at once', async () => {
    const order = await buy(2)
    // 50 refunds of 600..1400 centavos against 10000 paid: about ten fit, the others are refused whole.
    const amounts = Array.from({ length: 50 }, (_, n) => 600 + ((n * 37) % 801))
    const answers = await Promise.all(
      amounts.map((amount, n) => refund(order.id, { amount, reason: `race ${n}`, ...(n % 2 === 0 ? { reference: `race-${n}` } : {}) })),
    )
    const accepted = answers.flatMap((res) => (res.statusCode === 201 ? [res.json() as Refund] : []))
    const total = accepted.reduce((sum, r) => sum + r.amount, 0)
    expect(accepted.length).toBeGreaterThan(0)
    expect(total).toBeLessThanOrEqual(10000)
    for (const [n, res] of answers.entries()) {
      if (res.statusCode === 201) continue
      // Each one refused did not fit what was left at its turn, and what is left only shrinks. On a machine too busy
      // for the database's timeouts, one that waited too long for its turn is refused whole (503), having written nothing.
      if (res.statusCode === 409) {
        expectError(res, 409, 'refund_exceeds_paid')
        expect(amounts[n]!).toBeGreaterThan(10000 - total)
      } else expectError(res, 503, 'service_unavailable')
    }
    const after = await readOrder(order.id)
    expect(after.refunds.map((r) => r.id).sort()).toEqual(accepted.map((r) => r.id).sort())
    expect(after.refunded_total).toBe(accepted.filter((r) => r.status === 'done').reduce((sum, r) => sum + r.amount, 0))
    expect(await ledgerViolations(ctx.app.db)).toEqual([])
  })
})

describe('POST /{adm,stf}/v1/refunds/{id}/confirm', () => {
  it('confirms through the storefront only the seller’s own refunds; another seller’s is not found', async () => {
    const order = await buy(1)
    const pending = (await refund(order.id, { amount: 500, reason: 'x' })).json() as Refund
    expectError(await stfConfirm(pending.id, 'ref', b.auth), 404, 'not_found')
    expectError(await stfConfirm('00000000-0000-4000-8000-000000000000', 'ref'), 404, 'not_found')
    expect((await readOrder(order.id)).refunds[0]!.status).toBe('pending')
    const res = await stfConfirm(pending.id, 'provider-77')
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ id: pending.id, status: 'done', reference: 'provider-77' })
    const audit = await auditOf(ctx.app.db, 'stf.refund.confirmed', order.id)
    expect(audit).toHaveLength(1)
  })

  it('books a refund once, however many confirmations arrive at once', async () => {
    const order = await buy(1)
    const pending = (await refund(order.id, { amount: 700, reason: 'x' })).json() as Refund
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, n) => (n % 2 ? stfConfirm(pending.id, `c${n}`) : writer.post(`/refunds/${pending.id}/confirm`, { reference: `c${n}` }))),
    )
    expect(answers.map((res) => res.statusCode)).toEqual(Array(10).fill(200))
    expect(new Set(answers.map((res) => res.json().reference)).size).toBe(1)
    expect((await readOrder(order.id)).refunded_total).toBe(700)
    expect((await ledgerOf(ctx.app.db, order.id)).filter((row) => row.kind === 'refund')).toHaveLength(1)
  })

  it('refuses bad input with 400 and answers 401, 403 and 404 as its callers deserve', async () => {
    const order = await buy(1)
    const pending = (await refund(order.id, { amount: 500, reason: 'x' })).json() as Refund
    for (const body of [{}, { reference: '' }, { reference: 'r'.repeat(10_000) }, { reference: 42 }, { reference: 'ok', extra: 1 }]) {
      expectError(await writer.post(`/refunds/${pending.id}/confirm`, body), 400, 'validation_error')
      expectError(
        await ctx.app.inject({ method: 'POST', url: `/stf/v1/refunds/${pending.id}/confirm`, headers: a.auth, payload: body }),
        400,
        'validation_error',
      )
    }
    expectError(await writer.post('/refunds/not-a-uuid/confirm', { reference: 'r' }), 400, 'validation_error')
    expectError(await writer.post('/refunds/00000000-0000-4000-8000-000000000000/confirm', { reference: 'r' }), 404, 'not_found')
    expectError(await reader.post(`/refunds/${pending.id}/confirm`, { reference: 'r' }), 403, 'forbidden')
    expectError(await ctx.app.inject({ method: 'POST', url: `/stf/v1/refunds/${pending.id}/confirm`, payload: { reference: 'r' } }), 401, 'unauthorized')
    expect((await readOrder(order.id)).refunds[0]!.status).toBe('pending')
  })
})

describe('POST /adm/v1/orders/{id}/cancel, as it touches money', () => {
  it('a paid order: cancelled with a pending refund of what is left, and its tickets voided in the ledger', async () => {
    const order = await buy(3)
    expect((await refund(order.id, { amount: 1000, reason: 'fee', reference: 'f1' })).statusCode).toBe(201)
    expect((await refund(order.id, { amount: 2000, reason: 'pending one' })).statusCode).toBe(201)
    const before = await soldOf(ctx.app.db, inventoryId)
    const res = await writer.post(`/orders/${order.id}/cancel`)
    expect(res.statusCode, res.body).toBe(200)
    const cancelled = res.json() as TestOrder
    expect(cancelled).toMatchObject({ status: 'cancelled', paid_total: 15000, refunded_total: 1000 })
    expect(cancelled.refunds.map((r) => [r.amount, r.status])).toEqual([
      [1000, 'done'],
      [2000, 'pending'],
      [12000, 'pending'],
    ])
    expect(cancelled.refunds[2]!.tickets.sort()).toEqual(order.tickets.map((t) => t.identifier).sort())
    expect(await soldOf(ctx.app.db, inventoryId)).toBe(before - 3)
    expect((await ledgerOf(ctx.app.db, order.id)).map((row) => [row.kind, row.amount])).toEqual([
      ['sale', 15000],
      ['payment', 15000],
      ['refund', -1000],
      ['void', -15000],
    ])
    expect(await webhookTypesOf(ctx.app.db, order.id)).toEqual([
      'order.confirmed',
      'refund.created',
      'refund.done',
      'refund.created',
      'order.cancelled',
      'refund.created',
    ])
    expect(await emailsAbout(ctx.app.db, 'stf.order_refunded', order.id)).toHaveLength(3)

    // Cancelling again changes nothing; the refund left is confirmed as any other.
    const again = await writer.post(`/orders/${order.id}/cancel`)
    expect(again.statusCode).toBe(200)
    expect((again.json() as TestOrder).refunds).toHaveLength(3)
    expect((await writer.post(`/refunds/${cancelled.refunds[2]!.id}/confirm`, { reference: 'back' })).statusCode).toBe(200)
    expect((await readOrder(order.id)).refunded_total).toBe(13000)
  })

  it('a paid order refunded in full already: cancelled with no refund', async () => {
    const order = await buy(1)
    expect((await refund(order.id, { amount: 5000, reason: 'all', tickets: [order.tickets[0]!.identifier], reference: 'x' })).statusCode).toBe(201)
    const res = await writer.post(`/orders/${order.id}/cancel`)
    expect(res.json()).toMatchObject({ status: 'cancelled', refunded_total: 5000 })
    expect((res.json() as TestOrder).refunds).toHaveLength(1)
  })

  it('an order awaiting payment: cancelled, its tickets back on sale, no refund and nothing in the ledger', async () => {
    const order = await buy(2, { awaitPayment: true })
    const before = await soldOf(ctx.app.db, inventoryId)
    const res = await writer.post(`/orders/${order.id}/cancel`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ status: 'cancelled', paid_total: 0, refunds: [] })
    expect((res.json() as TestOrder).tickets.map((t) => t.status)).toEqual(['voided', 'voided'])
    expect(await soldOf(ctx.app.db, inventoryId)).toBe(before - 2)
    expect(await ledgerOf(ctx.app.db, order.id)).toEqual([])
    expect(await webhookTypesOf(ctx.app.db, order.id)).toEqual(['order.pending', 'order.cancelled'])
  })

  it('an expired order is answered as it is', async () => {
    const order = await buy(1, { awaitPayment: true })
    // As the expiry does it: tickets voided and back on sale, the order expired.
    await ctx.app.db.transaction(async (tx) => {
      await tx.update(tickets).set({ voidedAt: sql`now()` }).where(eq(tickets.orderId, order.id))
      await tx.execute(sql`update inventories set sold = sold - 1 where id = ${inventoryId}`)
      await tx.update(orders).set({ status: 'expired', expiredAt: sql`now()` }).where(eq(orders.id, order.id))
    })
    const res = await writer.post(`/orders/${order.id}/cancel`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'expired', cancelled_at: null, refunds: [] })
    expect(await webhookTypesOf(ctx.app.db, order.id)).toEqual(['order.pending'])
  })
})

describe('POST /adm/v1/orders/{id}/tickets/{identifier}/void, as it touches the ledger', () => {
  it('on a paid order writes the ticket’s void row; on an order awaiting payment answers 409 order_pending', async () => {
    const order = await buy(2)
    expect((await writer.post(`/orders/${order.id}/tickets/${order.tickets[0]!.identifier}/void`)).statusCode).toBe(200)
    expect((await ledgerOf(ctx.app.db, order.id)).map((row) => [row.kind, row.amount, row.tickets])).toEqual([
      ['sale', 10000, 2],
      ['payment', 10000, 0],
      ['void', -5000, -1],
    ])
    // Again: nothing more.
    expect((await writer.post(`/orders/${order.id}/tickets/${order.tickets[0]!.identifier}/void`)).statusCode).toBe(200)
    expect(await ledgerOf(ctx.app.db, order.id)).toHaveLength(3)

    const pending = await buy(1, { awaitPayment: true })
    const before = await soldOf(ctx.app.db, inventoryId)
    expectError(await writer.post(`/orders/${pending.id}/tickets/${pending.tickets[0]!.identifier}/void`), 409, 'order_pending')
    expect(await soldOf(ctx.app.db, inventoryId)).toBe(before)
    expect((await readOrder(pending.id)).tickets[0]!.status).toBe('pending')
  })
})
