import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import type { AdmClient } from '../support/adm-client.js'
import { buyTickets, checkinAdmin, feedPage, orderAwaitingPayment, pairedDevice, scanner, useSellersInUtc } from '../support/checkin.js'

/**
 * docs/payments.md at the door (7.5): a ticket of an order awaiting payment, or of one that expired
 * unpaid, is on the gates' feed with its status and is refused `unpaid`, judged before its window
 * of entry; once its order is paid, the feed's next page shows it valid and the gate lets it in.
 */
const ctx = useTestApp()
const [a] = useSellersInUtc(ctx)
let adm: AdmClient
let gate: ReturnType<typeof scanner>
let eventId: string
let todayId: string
let laterId: string
let listId: string

beforeAll(async () => {
  adm = await checkinAdmin(ctx.app)
  const event = await createTestEvent(ctx.app, a.seller.id, { title: 'Pix na porta' })
  eventId = event.id
  todayId = (await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 200 })).id
  laterId = (await createTestInventory(ctx.app, event, { date: dayFromToday(3), capacity: 50, name: 'Later' })).id
  listId = await newList('Main gate')
  gate = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id)).headers)
})

async function newList(name: string, inventoryIds?: string[]) {
  const res = await adm.post(`/events/${eventId}/checkin-lists`, { name, ...(inventoryIds ? { inventory_ids: inventoryIds } : {}) })
  expect(res.statusCode).toBe(201)
  return res.json().id as string
}

const pending = async (inventoryId = todayId, quantity = 1) => orderAwaitingPayment(ctx.app, a, [{ inventory_id: inventoryId, quantity }])
const redeem = (code: string, extra: Record<string, unknown> = {}, list = listId) => gate.post('/redeem', { code, list_ids: [list], ...extra })
const scansOf = async (identifier: string) => (await adm.get(`/checkin-lists/${listId}/checkins?identifier=${identifier}`)).json().data
const statusOf = async (list: string) => (await gate.get(`/lists/${list}/status`)).json()

/**
 * What the expiry sweep does to an unpaid order's rows, in one transaction: its tickets voided
 * and marked changed for the feed, the order `expired`. (It also gives their stock back, which
 * the door does not read.)
 */
const expireAsTheSweepDoes = (orderId: string) =>
  ctx.app.db.transaction(async (tx) => {
    await tx.execute(sql`update tickets set voided_at = now(), changed_xid = pg_current_xact_id() where order_id = ${orderId}::uuid`)
    await tx.execute(sql`update orders set status = 'expired', expired_at = now() where id = ${orderId}::uuid`)
  })

/** What a payment in full does to the order's rows the door reads, in one transaction: the order `confirmed`, its tickets marked changed. */
const payAsThePaymentDoes = (orderId: string) =>
  ctx.app.db.transaction(async (tx) => {
    await tx.execute(sql`update orders set status = 'confirmed', paid_total = total where id = ${orderId}::uuid`)
    await tx.execute(sql`update tickets set changed_xid = pg_current_xact_id() where order_id = ${orderId}::uuid`)
  })

describe('a ticket of an order awaiting payment', () => {
  it('is refused unpaid by its identifier, in and out, on /redeem and in a batch, and every refusal is kept', async () => {
    const order = await pending()
    const { identifier } = order.tickets[0]!
    const online = await redeem(identifier)
    expect(online.statusCode).toBe(200)
    expect(online.json()).toMatchObject({
      status: 'refused',
      reason: 'unpaid',
      list_id: listId,
      ticket: { identifier, order_id: order.id, status: 'pending', checked_in: false, inside: false },
      checkin: { identifier, successful: false, reason: 'unpaid', forced: false },
    })
    expect((await redeem(identifier, { type: 'exit' })).json()).toMatchObject({ status: 'refused', reason: 'unpaid' })
    const batch = await gate.post('/redeem/batch', { scans: [{ code: identifier, list_ids: [listId], nonce: `unpaid-${identifier}` }] })
    expect(batch.statusCode).toBe(200)
    expect(batch.json().results).toMatchObject([{ status: 'refused', reason: 'unpaid', ticket: { status: 'pending' } }])

    expect(await scansOf(identifier)).toEqual([
      expect.objectContaining({ successful: false, reason: 'unpaid', nonce: `unpaid-${identifier}` }),
      expect.objectContaining({ successful: false, reason: 'unpaid', type: 'exit' }),
      expect.objectContaining({ successful: false, reason: 'unpaid', type: 'entry' }),
    ])
  })

  it('is found by search with status pending, and the identifier found is refused unpaid', async () => {
    const order = await pending()
    const found = await gate.get(`/search?list_id=${listId}&q=${order.id.slice(0, 8)}`)
    expect(found.statusCode).toBe(200)
    expect(found.json().data).toEqual([expect.objectContaining({ identifier: order.tickets[0]!.identifier, order_id: order.id, status: 'pending' })])
    expect((await redeem(found.json().data[0].identifier)).json()).toMatchObject({ status: 'refused', reason: 'unpaid' })
  })

  it('answers unpaid before its window is judged: on a later date it is unpaid, where a paid ticket is invalid_time', async () => {
    const [unpaid] = (await pending(laterId)).tickets
    const [paid] = (await buyTickets(ctx.app, a, [{ inventory_id: laterId, quantity: 1 }])).tickets
    expect((await redeem(unpaid!.identifier)).json()).toMatchObject({ status: 'refused', reason: 'unpaid', ticket: { status: 'pending' } })
    expect((await redeem(paid!.identifier)).json()).toMatchObject({ status: 'refused', reason: 'invalid_time', ticket: { status: 'valid' } })
  })
})

describe('a ticket of an order that expired unpaid', () => {
  it('answers unpaid, not voided, though the expiry voided it', async () => {
    const order = await pending()
    await expireAsTheSweepDoes(order.id)
    const { identifier } = order.tickets[0]!
    expect((await redeem(identifier)).json()).toMatchObject({
      status: 'refused',
      reason: 'unpaid',
      ticket: { identifier, status: 'expired' },
      checkin: { successful: false, reason: 'unpaid' },
    })
    expect((await redeem(identifier, { type: 'exit' })).json()).toMatchObject({ status: 'refused', reason: 'unpaid' })
    // A paid ticket voided alone still answers voided.
    const voided = await buyTickets(ctx.app, a, [{ inventory_id: todayId, quantity: 1 }])
    expect((await adm.post(`/orders/${voided.id}/tickets/${voided.tickets[0]!.identifier}/void`)).statusCode).toBe(200)
    expect((await redeem(voided.tickets[0]!.identifier)).json()).toMatchObject({ reason: 'voided', ticket: { status: 'voided' } })
  })
})

describe('the ticket feed of unpaid orders', () => {
  it('carries a pending order’s tickets as pending and an expired one’s as expired; the counts leave them out', async () => {
    const inventory = (await createTestInventory(ctx.app, { id: eventId, sellerId: a.seller.id }, { date: dayFromToday(0), name: 'Feed' })).id
    const list = await newList('Feed', [inventory])
    const awaiting = await pending(inventory, 2)
    const expiring = await pending(inventory)
    const paid = await buyTickets(ctx.app, a, [{ inventory_id: inventory, quantity: 1 }])
    const everyone = [...awaiting.tickets, ...expiring.tickets, ...paid.tickets].map((t) => t.identifier)
    const first = await feedPage(gate, list, undefined, everyone)
    const statusOfTicket = (page: typeof first) => new Map(page.data.map((t) => [t.identifier, t.status]))
    expect(statusOfTicket(first)).toEqual(
      new Map([
        ...awaiting.tickets.map((t) => [t.identifier, 'pending'] as const),
        [expiring.tickets[0]!.identifier, 'pending'],
        [paid.tickets[0]!.identifier, 'valid'],
      ]),
    )

    await expireAsTheSweepDoes(expiring.id)
    const next = await feedPage(gate, list, first.next_cursor, [expiring.tickets[0]!.identifier])
    expect(statusOfTicket(next)).toEqual(new Map([[expiring.tickets[0]!.identifier, 'expired']]))
    // Valid tickets only: the paid one.
    expect(await statusOf(list)).toMatchObject({ tickets: 1, checked_in: 0, inventories: [{ inventory_id: inventory, tickets: 1 }] })
  })

  it('shows a pending order paid later as valid on the next page (its tickets marked changed with the payment), and the gate lets it in', async () => {
    const inventory = (await createTestInventory(ctx.app, { id: eventId, sellerId: a.seller.id }, { date: dayFromToday(0), name: 'Paid later' })).id
    const list = await newList('Paid later', [inventory])
    const order = await pending(inventory)
    const { identifier } = order.tickets[0]!
    const before = await feedPage(gate, list, undefined, [identifier])
    expect(before.data).toEqual([expect.objectContaining({ identifier, status: 'pending' })])
    expect(await statusOf(list)).toMatchObject({ tickets: 0 })

    await payAsThePaymentDoes(order.id)
    const after = await feedPage(gate, list, before.next_cursor, [identifier])
    expect(after.data).toEqual([expect.objectContaining({ identifier, status: 'valid', checked_in: false })])
    expect(await statusOf(list)).toMatchObject({ tickets: 1 })
    expect((await redeem(identifier, {}, list)).json()).toMatchObject({ status: 'ok', reason: null, ticket: { status: 'valid', checked_in: true } })
  })
})
