import { randomBytes, randomUUID } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { basketItems, baskets } from '../../src/domain/baskets/baskets.table.js'
import type { WaitingEntryView } from '../../src/domain/waiting-list/waiting-entry-view.js'
import { sqlState } from '../../src/platform/db/errors.js'
import { buildTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday, sellTickets } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestAffiliate, createTestSeller, type TestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { errorBody, expectError, linkToken } from '../support/customer-auth.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { SmtpSink } from '../support/smtp-sink.js'
import { asAdmin, createStaff } from '../support/staff.js'
import { drainWebhooks as drainSent, WebhookReceiver } from '../support/webhook-receiver.js'

/**
 * docs/waiting-list.md (issue 32): a waiting list per inventory that hands every returned ticket to the
 * people queuing, strictly in order, before the public can buy it. Nothing runs by itself here
 * (`startWorkers: false`): each test serves the queued turns with `runOnce('waiting_list')`,
 * sweeps with `app.waitingList.sweep()`, and delivers emails and webhooks by hand.
 */
let app: FastifyInstance
let sink: SmtpSink
let receiver: WebhookReceiver
let adm: AdmClient
let a: TestSeller
let b: TestSeller

const STOREFRONT_A = 'https://loja-a.example.com'

beforeAll(async () => {
  await resetDatabase(await testDatabase())
  sink = await SmtpSink.start()
  receiver = await WebhookReceiver.start()
  // Receivers listen on 127.0.0.1 over http: this app allows both, as a developer's would.
  app = await buildTestApp({ env: { SMTP_URL: sink.url, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_RETRY_BASE_MS: '1' } })
  adm = admClient(app, (await asAdmin(app)).auth)
  a = await createTestSeller(app, { name: 'Loja A', storefrontUrl: STOREFRONT_A })
  b = await createTestSeller(app, { name: 'Loja B' })
})
afterAll(async () => {
  await app?.close()
  await sink?.stop()
  await receiver?.stop()
})

type Headers = Record<string, string>
type Status = WaitingEntryView['status']
type Entry = WaitingEntryView
type Order = { id: string; status: string; tickets: { identifier: string; inventory_id: string }[] }
type Stock = { event: { id: string }; inventory: { id: string }; orders: Order[] }

const ENTRY_KEYS = [
  'basket_id',
  'created_at',
  'email',
  'id',
  'inventory_id',
  'name',
  'offer_expires_at',
  'position',
  'priority',
  'quantity',
  'status',
  'variant',
]

const freshEmail = (tag = 'buyer') => `${tag}-${randomBytes(5).toString('hex')}@example.com`

/** The date in a time zone, `offset` days from today there. */
function dayIn(timeZone: string, offset = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date())
  return new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10)
}

// ---- storefront calls ------------------------------------------------------------------------

const join = (seller: TestSeller, payload: Record<string, unknown>, headers: Headers = {}) =>
  app.inject({ method: 'POST', url: '/stf/v1/waiting-list', headers: { ...seller.auth, ...headers }, payload })
const getEntry = (seller: TestSeller, id: string) => app.inject({ method: 'GET', url: `/stf/v1/waiting-list/${id}`, headers: seller.auth })
const leave = (seller: TestSeller, id: string) => app.inject({ method: 'DELETE', url: `/stf/v1/waiting-list/${id}`, headers: seller.auth })
const accept = (seller: TestSeller, token: string) =>
  app.inject({ method: 'POST', url: '/stf/v1/waiting-list/accept', headers: seller.auth, payload: { token } })
const decline = (seller: TestSeller, token: string) =>
  app.inject({ method: 'POST', url: '/stf/v1/waiting-list/decline', headers: seller.auth, payload: { token } })
const openBasket = (headers: Headers, inventoryId: string, quantity: number) =>
  app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items: [{ inventory_id: inventoryId, quantity }] } })

/** Joins and expects 201: the entry. */
async function joined(seller: TestSeller, inventoryId: string, quantity: number, extra: Record<string, unknown> = {}, headers: Headers = {}) {
  const res = await join(seller, { inventory_id: inventoryId, quantity, email: freshEmail(), ...extra }, headers)
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as Entry
}

async function entry(seller: TestSeller, id: string): Promise<Entry> {
  const res = await getEntry(seller, id)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** Status and position of each entry, as the storefront reads them now. */
async function standings(seller: TestSeller, entries: Entry[]) {
  const out: [Status, number | null][] = []
  for (const e of entries) {
    const now = await entry(seller, e.id)
    out.push([now.status, now.position])
  }
  return out
}

/** Storefront availability of one inventory of an event. */
async function available(seller: TestSeller, eventId: string, inventoryId: string): Promise<number> {
  const res = await app.inject({ method: 'GET', url: `/stf/v1/events/${eventId}/availability`, headers: seller.auth })
  expect(res.statusCode, res.body).toBe(200)
  const found = res
    .json()
    .data.flatMap((d: { inventories: { id: string; available: number }[] }) => d.inventories)
    .find((i: { id: string }) => i.id === inventoryId)
  expect(found, `inventory ${inventoryId} in the availability`).toBeDefined()
  return found.available
}

/** A public buyer's new basket of `quantity` tickets: 409 insufficient_inventory while anyone waits. */
async function expectPublicRefused(seller: TestSeller, inventoryId: string, quantity = 1) {
  expectError(await openBasket(seller.auth, inventoryId, quantity), 409, 'insufficient_inventory')
}

async function checkout(headers: Headers, basketId: string): Promise<Order> {
  const res = await app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/checkout`, headers, payload: { payment_method: 'pix' } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

/** A basket and its checkout through the storefront, as a partner does it. */
async function buy(seller: TestSeller, inventoryId: string, quantity: number): Promise<Order> {
  const customer = await insertSignedInCustomer(app, seller)
  const basket = await openBasket(customer.headers, inventoryId, quantity)
  expect(basket.statusCode, basket.body).toBe(201)
  return checkout(customer.headers, basket.json().id)
}

// ---- back office -----------------------------------------------------------------------------

async function listOn(inventoryId: string) {
  const res = await adm.put(`/inventories/${inventoryId}`, { waiting_list: true })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json().waiting_list).toBe(true)
}

async function cancelOrder(orderId: string) {
  const res = await adm.post(`/orders/${orderId}/cancel`)
  expect(res.statusCode, res.body).toBe(200)
}

async function voidTicket(orderId: string, identifier: string) {
  const res = await adm.post(`/orders/${orderId}/tickets/${identifier}/void`)
  expect(res.statusCode, res.body).toBe(200)
}

async function admInventory(eventId: string, inventoryId: string) {
  const res = await adm.get(`/events/${eventId}/inventories?limit=100`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data.find((i: { id: string }) => i.id === inventoryId) as { held: number; sold: number; available: number; capacity: number }
}

/**
 * An inventory with its list on, sold out through real orders of the given sizes (capacity =
 * their sum), for tests that give tickets back by cancelling or voiding.
 */
async function soldOut(seller: TestSeller, orderSizes: number[], overrides: Parameters<typeof createTestInventory>[2] = {}): Promise<Stock> {
  const event = await createTestEvent(app, seller.seller.id)
  const capacity = orderSizes.reduce((sum, n) => sum + n, 0)
  const inventory = await createTestInventory(app, event, { capacity, price: 5000, ...overrides })
  // On while nobody waits: the list does not get in the way of a sale.
  await listOn(inventory.id)
  const orders: Order[] = []
  for (const size of orderSizes) orders.push(await buy(seller, inventory.id, size))
  expect(await available(seller, event.id, inventory.id)).toBe(0)
  return { event, inventory, orders }
}

/** An inventory with its list on whose tickets are all recorded as sold (no orders), for the joining rules. */
async function soldOutRows(
  seller: TestSeller,
  capacity = 2,
  eventOverrides: Parameters<typeof createTestEvent>[2] = {},
  overrides: Parameters<typeof createTestInventory>[2] = {},
) {
  const event = await createTestEvent(app, seller.seller.id, eventOverrides)
  const inventory = await createTestInventory(app, event, { capacity, ...overrides })
  await sellTickets(app, inventory.id, capacity)
  await listOn(inventory.id)
  return { event, inventory }
}

// ---- serving, mail, webhooks -----------------------------------------------------------------

/** Serves the turns the database queued when tickets were freed. */
const serve = () => app.outbox.runOnce('waiting_list')
const sweep = () => app.waitingList.sweep()

/** Moves one offer's expiry into the past (the spec's way to let an offer run out). */
const backdateOffer = (entryId: string) => app.db.execute(sql`update waiting_entries set offer_expires_at = now() - interval '1 second' where id = ${entryId}`)
const backdateBasket = (basketId: string) => app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, basketId))

const offerMails = (address: string) => sink.to(address).filter((mail) => mail.includes('/waiting-list/accept?token='))

/** Delivers the outbox's emails and answers the token of the one new offer email to `address`. */
async function offerToken(address: string, storefrontUrl = STOREFRONT_A): Promise<string> {
  const before = offerMails(address).length
  await app.outbox.runOnce('email')
  const mails = offerMails(address)
  expect(mails.length, `offer emails to ${address}`).toBe(before + 1)
  return linkToken(mails.at(-1)!, storefrontUrl, 'waiting-list/accept')
}

const drainWebhooks = () => drainSent(app)

/** Baskets whose items hold tickets of the inventory now (the one reading of "held"). */
const holdersOf = (inventoryId: string) =>
  app.db
    .select({ basketId: basketItems.basketId, quantity: basketItems.quantity })
    .from(basketItems)
    .where(and(eq(basketItems.inventoryId, inventoryId), sql`${basketItems.heldUntil} > now()`))

const minutesFromNow = (iso: string | null) => (Date.parse(iso ?? '') - Date.now()) / 60_000

function expectLimited(res: LightMyRequestResponse) {
  expectError(res, 429, 'rate_limited')
  const retryAfter = Number(res.headers['retry-after'])
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(app.config.stfRateLimits.windowSeconds)
}

// ---- the tests -------------------------------------------------------------------------------

describe('serving strictly in order', () => {
  it('offers 2 returned tickets to the head (quantity 2) only, keeps them from the public, and after its checkout gives the next ones to the next entry', async () => {
    const stock = await soldOut(a, [2, 2, 1])
    const inventoryId = stock.inventory.id
    const quantities = [2, 1, 3, 1, 2, 3, 1, 2, 3, 1]
    const buyer = await insertSignedInCustomer(app, a)
    const entries: Entry[] = []
    for (const [n, quantity] of quantities.entries()) {
      // The first one joins as a signed-in customer (X-Customer-Token links it).
      entries.push(await joined(a, inventoryId, quantity, { name: `Buyer ${n}` }, n === 0 ? buyer.headers : {}))
    }
    expect(entries.map((e) => e.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(entries.every((e) => e.status === 'waiting' && e.offer_expires_at === null && e.basket_id === null)).toBe(true)
    const [head, second, third] = entries as [Entry, Entry, Entry]

    // An order of 2 comes back. Before any turn is served, the public already cannot take it.
    await cancelOrder(stock.orders[0]!.id)
    expect(await available(a, stock.event.id, inventoryId)).toBe(0)
    await expectPublicRefused(a, inventoryId)

    expect(await serve()).toBeGreaterThanOrEqual(1)
    const offered = await entry(a, head.id)
    expect(offered).toMatchObject({ status: 'offered', position: null, quantity: 2, basket_id: null })
    // The seller's default offer lasts 1440 minutes.
    expect(minutesFromNow(offered.offer_expires_at)).toBeGreaterThan(1430)
    expect(minutesFromNow(offered.offer_expires_at)).toBeLessThanOrEqual(1441)
    expect(await standings(a, entries.slice(1))).toEqual(entries.slice(1).map((_, n) => ['waiting', n + 1]))
    // The offer holds its tickets: the back office counts them as held, the public sees none.
    expect(await admInventory(stock.event.id, inventoryId)).toMatchObject({ held: 2, available: 0 })
    expect(await available(a, stock.event.id, inventoryId)).toBe(0)
    await expectPublicRefused(a, inventoryId)
    // Serving again offers nothing more.
    await serve()
    expect((await entry(a, second.id)).status).toBe('waiting')

    const token = await offerToken(head.email)
    expect(offerMails(second.email)).toEqual([])
    const accepted = await accept(a, token)
    expect(accepted.statusCode, accepted.body).toBe(201)
    const basket = accepted.json()
    expect(basket).toMatchObject({ id: expect.any(String), status: 'open', order_id: null, items: [{ inventory_id: inventoryId, quantity: 2, variant: null }] })
    expect(await entry(a, head.id)).toMatchObject({ status: 'accepted', position: null, basket_id: basket.id })
    const order = await checkout(buyer.headers, basket.id)
    expect(order.tickets).toHaveLength(2)
    expect(await admInventory(stock.event.id, inventoryId)).toMatchObject({ sold: 5, held: 0, available: 0 })

    // The next order of 2 comes back: the next entry (quantity 1) is offered; the one after it
    // wants 3 and waits, and the ticket left over is not sold to the public.
    await cancelOrder(stock.orders[1]!.id)
    await serve()
    expect(await entry(a, second.id)).toMatchObject({ status: 'offered', quantity: 1 })
    expect(await entry(a, third.id)).toMatchObject({ status: 'waiting', position: 1 })
    expect(await standings(a, entries.slice(3))).toEqual(entries.slice(3).map((_, n) => ['waiting', n + 2]))
    expect(await available(a, stock.event.id, inventoryId)).toBe(0)
    await expectPublicRefused(a, inventoryId)
    expect(await admInventory(stock.event.id, inventoryId)).toMatchObject({ sold: 3, held: 1 })
    await offerToken(second.email)
    expect(offerMails(third.email)).toEqual([])
  })

  it('offers nobody while the head wants 3 and only 2 are free, not even a later entry wanting 1, until a third comes back', async () => {
    const stock = await soldOut(a, [2, 2, 1])
    const inventoryId = stock.inventory.id
    const head = await joined(a, inventoryId, 3)
    const behind = await joined(a, inventoryId, 1)

    await cancelOrder(stock.orders[0]!.id)
    await serve()
    await sweep()
    expect(await standings(a, [head, behind])).toEqual([
      ['waiting', 1],
      ['waiting', 2],
    ])
    expect(await available(a, stock.event.id, inventoryId)).toBe(0)
    await expectPublicRefused(a, inventoryId)
    await app.outbox.runOnce('email')
    expect(offerMails(head.email)).toEqual([])
    expect(offerMails(behind.email)).toEqual([])

    // A voided ticket is the third.
    await voidTicket(stock.orders[2]!.id, stock.orders[2]!.tickets[0]!.identifier)
    await serve()
    expect(await entry(a, head.id)).toMatchObject({ status: 'offered', quantity: 3, position: null })
    expect(await entry(a, behind.id)).toMatchObject({ status: 'waiting', position: 1 })
    expect(await admInventory(stock.event.id, inventoryId)).toMatchObject({ held: 3, available: 0 })
    await offerToken(head.email)
  })

  it('offers nothing while the event is not on sale or the date has passed, and serves the queue once it sells again', async () => {
    const stock = await soldOut(a, [1, 1])
    const inventoryId = stock.inventory.id
    const head = await joined(a, inventoryId, 1)
    await app.db.execute(sql`update events set status = 'cancelled' where id = ${stock.event.id}`)
    await cancelOrder(stock.orders[0]!.id)
    await serve()
    expect(await sweep()).toBe(0)
    expect((await entry(a, head.id)).status).toBe('waiting')

    // Published again: the database nudges the queue (announce_tickets_freed.sql), and the head is served.
    await app.db.execute(sql`update events set status = 'published' where id = ${stock.event.id}`)
    expect(await serve()).toBeGreaterThan(0)
    expect((await entry(a, head.id)).status).toBe('offered')

    // A date that has passed: the next ticket returned goes to nobody, and the entries still waiting expire.
    const behind = await joined(a, inventoryId, 1)
    await app.db.execute(sql`update inventories set date = ${dayFromToday(-2)} where id = ${inventoryId}`)
    await cancelOrder(stock.orders[1]!.id)
    await serve()
    expect(await sweep()).toBe(0)
    expect(await entry(a, behind.id)).toMatchObject({ status: 'expired', position: null })
    expect(await app.db.execute(sql`select 1 from waiting_list_turns where inventory_id = ${inventoryId}`)).toMatchObject({ rows: [] })
  })

  it('frees the tickets of an order bought from an offer and cancelled later like any other: the next entry is offered', async () => {
    const stock = await soldOut(a, [2])
    const inventoryId = stock.inventory.id
    const first = await joined(a, inventoryId, 2)
    const next = await joined(a, inventoryId, 2)
    await cancelOrder(stock.orders[0]!.id)
    await serve()
    const basket = await accept(a, await offerToken(first.email))
    expect(basket.statusCode, basket.body).toBe(201)
    const customer = await insertSignedInCustomer(app, a)
    const order = await checkout(customer.headers, basket.json().id)
    expect((await entry(a, next.id)).status).toBe('waiting')

    await cancelOrder(order.id)
    await serve()
    expect(await entry(a, next.id)).toMatchObject({ status: 'offered', quantity: 2 })
    expect(await admInventory(stock.event.id, inventoryId)).toMatchObject({ sold: 0, held: 2, available: 0 })
    await offerToken(next.email)
  })

  it('passes the tickets of an accepted basket that expires unpaid to the next entry, and back to the public when nobody waits', async () => {
    const stock = await soldOut(a, [1])
    const inventoryId = stock.inventory.id
    const first = await joined(a, inventoryId, 1)
    const next = await joined(a, inventoryId, 1)
    await cancelOrder(stock.orders[0]!.id)
    await serve()
    const basket = await accept(a, await offerToken(first.email))
    expect(basket.statusCode, basket.body).toBe(201)
    await backdateBasket(basket.json().id)
    await sweep()
    await serve()
    expect(await entry(a, next.id)).toMatchObject({ status: 'offered', quantity: 1 })
    const token = await offerToken(next.email)

    // The last one declines: nobody waits, so the ticket goes back on sale.
    const declined = await decline(a, token)
    expect(declined.statusCode, declined.body).toBe(200)
    await serve()
    expect(await available(a, stock.event.id, inventoryId)).toBe(1)
    expect((await openBasket(a.auth, inventoryId, 1)).statusCode).toBe(201)
  })
})

describe('baskets already holding tickets', () => {
  it('keep them and check out while others wait', async () => {
    const stock = await soldOut(a, [2])
    const inventoryId = stock.inventory.id
    // Capacity 3: a public basket takes the last ticket before anyone joins.
    expect((await adm.put(`/inventories/${inventoryId}`, { capacity: 3 })).statusCode).toBe(200)
    const customer = await insertSignedInCustomer(app, a)
    const basket = await openBasket(customer.headers, inventoryId, 1)
    expect(basket.statusCode, basket.body).toBe(201)
    const waiting = await joined(a, inventoryId, 1)
    expect(waiting.position).toBe(1)

    const order = await checkout(customer.headers, basket.json().id)
    expect(order.tickets).toHaveLength(1)
    expect(await admInventory(stock.event.id, inventoryId)).toMatchObject({ sold: 3, held: 0, available: 0 })
    expect(await entry(a, waiting.id)).toMatchObject({ status: 'waiting', position: 1 })
  })
})

describe('offers that expire', () => {
  it('keeps waiting_list_offer_minutes within 5..10080 (default 1440)', async () => {
    const seller = await createTestSeller(app)
    expect((await adm.get(`/sellers/${seller.seller.id}`)).json().settings.waiting_list_offer_minutes).toBe(1440)
    for (const minutes of [4, 10_081]) {
      const res = await adm.put(`/sellers/${seller.seller.id}`, { settings: { waiting_list_offer_minutes: minutes } })
      expectError(res, 400, 'validation_error')
    }
    for (const minutes of [5, 10_080]) {
      const res = await adm.put(`/sellers/${seller.seller.id}`, { settings: { waiting_list_offer_minutes: minutes } })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json().settings.waiting_list_offer_minutes).toBe(minutes)
    }
  })

  it('expires an offer past offer_expires_at, offers the next entry, answers 410 to the late accept, and sends both webhooks without emails', async () => {
    const seller = await createTestSeller(app, { storefrontUrl: 'https://expiring.example.com' })
    const set = await adm.put(`/sellers/${seller.seller.id}`, { settings: { waiting_list_offer_minutes: 5 } })
    expect(set.statusCode, set.body).toBe(200)
    const hook = await adm.post(`/sellers/${seller.seller.id}/webhooks`, {
      url: receiver.url(`/${randomUUID()}`),
      events: ['waiting_list.offered', 'waiting_list.expired'],
    })
    expect(hook.statusCode, hook.body).toBe(201)

    const stock = await soldOut(seller, [1, 1])
    const inventoryId = stock.inventory.id
    const first = await joined(seller, inventoryId, 1, { name: 'First' })
    const next = await joined(seller, inventoryId, 1, { name: 'Next' })
    const last = await joined(seller, inventoryId, 1, { name: 'Last' })

    await cancelOrder(stock.orders[0]!.id)
    await serve()
    const offered = await entry(seller, first.id)
    expect(offered.status).toBe('offered')
    expect(minutesFromNow(offered.offer_expires_at)).toBeGreaterThan(4)
    expect(minutesFromNow(offered.offer_expires_at)).toBeLessThanOrEqual(5.05)
    const token = await offerToken(first.email, 'https://expiring.example.com')

    await backdateOffer(first.id)
    // Expired even before any sweep noticed.
    expectError(await accept(seller, token), 410, 'offer_expired')
    expect(await sweep()).toBeGreaterThanOrEqual(1)
    expect(await entry(seller, first.id)).toMatchObject({ status: 'expired', position: null })
    expect(await entry(seller, next.id)).toMatchObject({ status: 'offered' })
    expect(await entry(seller, last.id)).toMatchObject({ status: 'waiting', position: 1 })
    expectError(await accept(seller, token), 410, 'offer_expired')
    // The expired offer's hold ended and went to the next entry: still one ticket held.
    expect(await admInventory(stock.event.id, inventoryId)).toMatchObject({ held: 1, available: 0 })
    await offerToken(next.email, 'https://expiring.example.com')

    await drainWebhooks()
    const mine = receiver.received.filter((r) => r.json.seller_id === seller.seller.id)
    const offeredHooks = mine.filter((r) => r.json.type === 'waiting_list.offered')
    const expiredHooks = mine.filter((r) => r.json.type === 'waiting_list.expired')
    expect(offeredHooks.map((r) => r.json.data.id).sort()).toEqual([first.id, next.id].sort())
    expect(expiredHooks.map((r) => r.json.data.id)).toEqual([first.id])
    const expectedKeys = ENTRY_KEYS.filter((k) => k !== 'email')
    for (const hook of [...offeredHooks, ...expiredHooks]) {
      expect(Object.keys(hook.json.data).sort()).toEqual(expectedKeys)
      expect(hook.json.data).not.toHaveProperty('email')
      expect(hook.json.data).toMatchObject({ inventory_id: inventoryId, quantity: 1 })
      expect(hook.body).not.toContain('@example.com')
    }
    expect(offeredHooks.find((r) => r.json.data.id === next.id)!.json.data).toMatchObject({ status: 'offered', name: 'Next' })
    expect(expiredHooks[0]!.json.data).toMatchObject({ status: 'expired', name: 'First' })
  })
})

describe('joining', () => {
  it('answers the entry with its position, and GET keeps the position current', async () => {
    const { inventory } = await soldOutRows(a, 3, {}, { variants: [{ name: 'Meia', description: 'half price', type: 'half', price: 2500 }] })
    const email = freshEmail('shape')
    const res = await join(a, { inventory_id: inventory.id, quantity: 2, email, name: 'Ana', variant: 'Meia' })
    expect(res.statusCode, res.body).toBe(201)
    const first = res.json() as Entry
    expect(first).toEqual({
      id: expect.any(String),
      inventory_id: inventory.id,
      variant: 'Meia',
      quantity: 2,
      email,
      name: 'Ana',
      priority: expect.any(Number),
      status: 'waiting',
      position: 1,
      offer_expires_at: null,
      basket_id: null,
      created_at: expect.any(String),
    })
    const noName = await joined(a, inventory.id, 1)
    expect(noName).toMatchObject({ name: null, variant: null, position: 2 })
    const third = await joined(a, inventory.id, 3)
    expect(third.position).toBe(3)
    expect(await entry(a, first.id)).toEqual(first)

    expect((await leave(a, first.id)).statusCode).toBe(204)
    expect(await entry(a, first.id)).toMatchObject({ status: 'cancelled', position: null })
    expect(await standings(a, [noName, third])).toEqual([
      ['waiting', 1],
      ['waiting', 2],
    ])
    // Having left, the same address may join again, at the back.
    const again = await join(a, { inventory_id: inventory.id, quantity: 1, email })
    expect(again.statusCode, again.body).toBe(201)
    expect(again.json().position).toBe(3)
  })

  it("answers 404 alike for an unknown, another seller's and a draft event's inventory", async () => {
    const theirs = await soldOutRows(b)
    const draft = await soldOutRows(a, 2, { status: 'draft' })
    const body = (inventoryId: string) => ({ inventory_id: inventoryId, quantity: 1, email: 'same@example.com' })
    const unknown = await join(a, body(randomUUID()))
    expectError(unknown, 404, 'not_found')
    const reference = errorBody(unknown)
    for (const inventoryId of [theirs.inventory.id, draft.inventory.id]) {
      const res = await join(a, body(inventoryId))
      expect(res.statusCode, res.body).toBe(404)
      expect(errorBody(res)).toEqual(reference)
    }
  })

  it('answers 409 waiting_list_closed when the list is off, the event is cancelled or finished, or the date has passed', async () => {
    const off = await createTestInventory(app, await createTestEvent(app, a.seller.id), { capacity: 2 })
    await sellTickets(app, off.id, 2)
    const inventoryIds = [
      off.id,
      (await soldOutRows(a, 2, { status: 'cancelled' })).inventory.id,
      (await soldOutRows(a, 2, { status: 'finished' })).inventory.id,
      (await soldOutRows(a, 2, {}, { date: dayIn('America/Sao_Paulo', -1) })).inventory.id,
    ]
    for (const inventoryId of inventoryIds) {
      const res = await join(a, { inventory_id: inventoryId, quantity: 1, email: freshEmail() })
      expect(res.statusCode, `${inventoryId}: ${res.body}`).toBe(409)
      expectError(res, 409, 'waiting_list_closed')
    }
    // A published event's list turned off again closes too.
    const onThenOff = await soldOutRows(a)
    expect((await adm.put(`/inventories/${onThenOff.inventory.id}`, { waiting_list: false })).json().waiting_list).toBe(false)
    expectError(await join(a, { inventory_id: onThenOff.inventory.id, quantity: 1, email: freshEmail() }), 409, 'waiting_list_closed')
  })

  it('answers 409 tickets_available while any ticket is on sale to the public, whatever the quantity: a join for 20 while 1 is on sale would freeze the sale', async () => {
    const shop = await createTestSeller(app, { settings: { waiting_list_max_quantity: 20 } })
    const event = await createTestEvent(app, shop.seller.id)
    const inventory = await createTestInventory(app, event, { capacity: 30 })
    await sellTickets(app, inventory.id, 29)
    await listOn(inventory.id)
    expect(await available(shop, event.id, inventory.id)).toBe(1)
    for (const quantity of [20, 2, 1]) {
      expectError(await join(shop, { inventory_id: inventory.id, quantity, email: freshEmail() }), 409, 'tickets_available')
    }
    // Nobody waits: the public still buys the last ticket, and a buyer for 1 after it is served when one comes back.
    expect(await available(shop, event.id, inventory.id)).toBe(1)
    const bought = await buy(shop, inventory.id, 1)
    const one = await joined(shop, inventory.id, 1)
    expect(one.position).toBe(1)
    await cancelOrder(bought.id)
    await serve()
    expect(await entry(shop, one.id)).toMatchObject({ status: 'offered' })
  })

  it('answers 409 tickets_available while a ticket is free, however the rest is held or sold, and accepts once none is left', async () => {
    const event = await createTestEvent(app, a.seller.id)
    const inventory = await createTestInventory(app, event, { capacity: 5 })
    await sellTickets(app, inventory.id, 3)
    await listOn(inventory.id)
    const holder = await insertSignedInCustomer(app, a)
    const held = await openBasket(holder.headers, inventory.id, 1)
    expect(held.statusCode, held.body).toBe(201)
    // 1 left: a join for more than is left, which fits nobody's sale, is refused too.
    expectError(await join(a, { inventory_id: inventory.id, quantity: 3, email: freshEmail() }), 409, 'tickets_available')
    expect((await openBasket(a.auth, inventory.id, 1)).statusCode).toBe(201)
    const big = await joined(a, inventory.id, 3)
    expect(big.position).toBe(1)
    // Someone waits now: whatever comes back is theirs, and a smaller quantity queues behind.
    const small = await joined(a, inventory.id, 1)
    expect(small.position).toBe(2)
    expect(await available(a, event.id, inventory.id)).toBe(0)
    await expectPublicRefused(a, inventory.id)
  })

  it("answers 400 validation_error on quantity above the seller's waiting_list_max_quantity (default 4) or the inventory's capacity", async () => {
    const shop = await createTestSeller(app)
    expect((await adm.get(`/sellers/${shop.seller.id}`)).json().settings.waiting_list_max_quantity).toBe(4)
    const { inventory } = await soldOutRows(shop, 6)
    const small = await soldOutRows(shop, 3)
    const refused = async (inventoryId: string, quantity: number) => {
      const res = await join(shop, { inventory_id: inventoryId, quantity, email: freshEmail() })
      expectError(res, 400, 'validation_error')
      expect(res.json().details.map((d: { path: string }) => d.path)).toEqual(['quantity'])
    }
    await refused(inventory.id, 5)
    expect((await joined(shop, inventory.id, 4)).quantity).toBe(4)

    for (const bad of [0, 21, 2.5]) {
      expectError(await adm.put(`/sellers/${shop.seller.id}`, { settings: { waiting_list_max_quantity: bad } }), 400, 'validation_error')
    }
    expect((await adm.put(`/sellers/${shop.seller.id}`, { settings: { waiting_list_max_quantity: 20 } })).statusCode).toBe(200)
    expect((await joined(shop, inventory.id, 6)).quantity).toBe(6)
    // Never above the capacity, whatever the setting.
    await refused(inventory.id, 7)
    await refused(small.inventory.id, 4)
    expect((await joined(shop, small.inventory.id, 3)).quantity).toBe(3)

    expect((await adm.put(`/sellers/${shop.seller.id}`, { settings: { waiting_list_max_quantity: 1 } })).statusCode).toBe(200)
    await refused(inventory.id, 2)
    expect((await joined(shop, inventory.id, 1)).quantity).toBe(1)
  })

  it('answers 409 already_waiting for the same email in another letter case, also while offered', async () => {
    const stock = await soldOut(a, [1])
    await joined(a, stock.inventory.id, 1, { email: 'Rita.Lee@Example.com' })
    for (const email of ['rita.lee@example.com', 'RITA.LEE@EXAMPLE.COM']) {
      expectError(await join(a, { inventory_id: stock.inventory.id, quantity: 1, email }), 409, 'already_waiting')
    }
    await cancelOrder(stock.orders[0]!.id)
    await serve()
    expectError(await join(a, { inventory_id: stock.inventory.id, quantity: 1, email: 'rita.LEE@example.com' }), 409, 'already_waiting')
    // Another seller's list is another list.
    const theirs = await soldOutRows(b)
    expect((await join(b, { inventory_id: theirs.inventory.id, quantity: 1, email: 'rita.lee@example.com' })).statusCode).toBe(201)
  })

  it('refuses quantities outside 1..20, an unknown variant, unknown fields and malformed values with 400 validation_error', async () => {
    const { inventory } = await soldOutRows(a, 2, {}, { variants: [{ name: 'Inteira', description: '', type: 'full' }] })
    const base = { inventory_id: inventory.id, quantity: 1, email: freshEmail() }
    for (const payload of [
      { ...base, quantity: 0 },
      { ...base, quantity: 21 },
      { ...base, quantity: 1.5 },
      { ...base, variant: 'Camarote' },
      { ...base, email: 'not an email' },
      { ...base, inventory_id: 'not-a-uuid' },
      { ...base, priority: 10 },
      { inventory_id: inventory.id, quantity: 1 },
    ]) {
      const res = await join(a, payload)
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
    expect((await join(a, { ...base, variant: 'Inteira' })).statusCode).toBe(201)
    expect((await join(a, { ...base, email: freshEmail(), quantity: 2 })).statusCode).toBe(201)
  })

  it("answers 404 for another seller's entry on GET and DELETE, leaving it as it was", async () => {
    const { inventory } = await soldOutRows(a)
    const mine = await joined(a, inventory.id, 1)
    const unknown = await getEntry(b, randomUUID())
    expectError(unknown, 404, 'not_found')
    const elsewhere = await getEntry(b, mine.id)
    expect(elsewhere.statusCode).toBe(404)
    expect(errorBody(elsewhere)).toEqual(errorBody(unknown))
    expect(elsewhere.body).not.toContain(mine.email)
    expectError(await leave(b, mine.id), 404, 'not_found')
    expect(await entry(a, mine.id)).toMatchObject({ status: 'waiting', position: 1 })
    expectError(await getEntry(a, 'not-a-uuid'), 400, 'validation_error')
  })

  it('shows waiting_list on inventories in the back office, false by default', async () => {
    const event = await createTestEvent(app, a.seller.id)
    const created = await adm.post(`/events/${event.id}/inventories`, { date: dayFromToday(20), name: 'Pista', price: 1000, capacity: 10 })
    expect(created.statusCode, created.body).toBe(201)
    expect(created.json().waiting_list).toBe(false)
    const withList = await adm.post(`/events/${event.id}/inventories`, {
      date: dayFromToday(20),
      name: 'Camarote',
      price: 1000,
      capacity: 10,
      waiting_list: true,
    })
    expect(withList.statusCode, withList.body).toBe(201)
    expect(withList.json().waiting_list).toBe(true)
    await listOn(created.json().id)
    const listed = (await adm.get(`/events/${event.id}/inventories`)).json().data
    expect(listed.map((i: { waiting_list: boolean }) => i.waiting_list)).toEqual([true, true])
  })
})

describe('accept and decline tokens', () => {
  it('gives exactly one basket to two accepts at once, refuses the token at another seller, and a decline passes the tickets on', async () => {
    const stock = await soldOut(a, [1, 1])
    const inventoryId = stock.inventory.id
    const first = await joined(a, inventoryId, 1)
    const second = await joined(a, inventoryId, 1)
    const third = await joined(a, inventoryId, 1)
    await cancelOrder(stock.orders[0]!.id)
    await serve()
    const token = await offerToken(first.email)

    expectError(await accept(b, token), 401, 'invalid_token')
    expectError(await accept(a, 'x'.repeat(43)), 401, 'invalid_token')
    expect((await entry(a, first.id)).status).toBe('offered')

    const answers = await Promise.all([accept(a, token), accept(a, token)])
    const won = answers.filter((r) => r.statusCode === 201)
    expect(
      answers.map((r) => r.statusCode),
      answers.map((r) => r.body).join('\n'),
    ).toEqual(expect.arrayContaining([201, 401]))
    expect(won).toHaveLength(1)
    expectError(answers.find((r) => r.statusCode !== 201)!, 401, 'invalid_token')
    const basketId = won[0]!.json().id
    expect(await holdersOf(inventoryId)).toEqual([{ basketId, quantity: 1 }])
    expect(await admInventory(stock.event.id, inventoryId)).toMatchObject({ held: 1 })
    expect(await entry(a, first.id)).toMatchObject({ status: 'accepted', basket_id: basketId })
    expectError(await accept(a, token), 401, 'invalid_token')

    // The second returned ticket goes to the second entry, who declines: the third gets it at once.
    await cancelOrder(stock.orders[1]!.id)
    await serve()
    const secondToken = await offerToken(second.email)
    const declined = await decline(a, secondToken)
    expect(declined.statusCode, declined.body).toBe(200)
    expect(declined.json()).toMatchObject({ id: second.id, status: 'declined', position: null })
    expectError(await decline(a, secondToken), 401, 'invalid_token')
    expectError(await accept(a, secondToken), 401, 'invalid_token')
    await serve()
    expect(await entry(a, third.id)).toMatchObject({ status: 'offered', quantity: 1 })
    await offerToken(third.email)

    // The third leaves while offered: nobody waits, the ticket is back on sale.
    expect((await leave(a, third.id)).statusCode).toBe(204)
    expect((await entry(a, third.id)).status).toBe('cancelled')
    await serve()
    expect(await available(a, stock.event.id, inventoryId)).toBe(1)
  })

  it('offers the inventory itself when the variant named on joining was withdrawn since', async () => {
    const stock = await soldOut(a, [1], { price: 6000, variants: [{ name: 'Meia', description: 'half price', type: 'half', price: 3000 }] })
    const fan = await joined(a, stock.inventory.id, 1, { variant: 'Meia' })
    expect((await adm.put(`/inventories/${stock.inventory.id}`, { variants: [] })).statusCode).toBe(200)
    await cancelOrder(stock.orders[0]!.id)
    await serve()
    const basket = await accept(a, await offerToken(fan.email))
    expect(basket.statusCode, basket.body).toBe(201)
    expect(basket.json().items).toEqual([expect.objectContaining({ variant: null, quantity: 1, unit_price: 6000, available: true })])
    const customer = await insertSignedInCustomer(app, a)
    expect((await checkout(customer.headers, basket.json().id)).status).toBe('confirmed')
  })

  it('prices an accepted offer with the variant named on joining', async () => {
    const stock = await soldOut(a, [1], { price: 6000, variants: [{ name: 'Meia', description: 'half price', type: 'half', price: 3000 }] })
    const fan = await joined(a, stock.inventory.id, 1, { variant: 'Meia' })
    await cancelOrder(stock.orders[0]!.id)
    await serve()
    const basket = await accept(a, await offerToken(fan.email))
    expect(basket.statusCode, basket.body).toBe(201)
    expect(basket.json().items).toEqual([expect.objectContaining({ inventory_id: stock.inventory.id, variant: 'Meia', quantity: 1, unit_price: 3000 })])
  })
})

describe('the queue in the back office', () => {
  it('lists in serving order with a status filter, moves an entry ahead by priority, and makes an offer out of turn', async () => {
    const stock = await soldOut(a, [1, 1, 1])
    const inventoryId = stock.inventory.id
    const [e1, e2, e3, e4] = [
      await joined(a, inventoryId, 1),
      await joined(a, inventoryId, 1),
      await joined(a, inventoryId, 2),
      await joined(a, inventoryId, 1),
    ]
    const ids = (res: LightMyRequestResponse) => res.json().data.map((e: Entry) => e.id)
    const list = (query = '') => adm.get(`/inventories/${inventoryId}/waiting-list${query}`)

    const initial = await list()
    expect(initial.statusCode, initial.body).toBe(200)
    expect(ids(initial)).toEqual([e1.id, e2.id, e3.id, e4.id])
    expect(initial.json().meta).toEqual({ count: 4, limit: 20, page: 1, total: 4 })
    expect(initial.json().data[0]).toEqual(await entry(a, e1.id))

    // Raised priority serves first; equal priorities keep the order of joining.
    const raised = await adm.put(`/waiting-list/${e3.id}`, { priority: e3.priority + 5 })
    expect(raised.statusCode, raised.body).toBe(200)
    expect(raised.json()).toMatchObject({ id: e3.id, priority: e3.priority + 5, position: 1 })
    expect((await adm.put(`/waiting-list/${e4.id}`, { priority: e4.priority + 5 })).statusCode).toBe(200)
    expect(ids(await list())).toEqual([e3.id, e4.id, e1.id, e2.id])
    expect(await standings(a, [e3, e4, e1, e2])).toEqual([
      ['waiting', 1],
      ['waiting', 2],
      ['waiting', 3],
      ['waiting', 4],
    ])
    const page = await list('?limit=2&page=2')
    expect(ids(page)).toEqual([e1.id, e2.id])
    expect(page.json().meta).toEqual({ count: 2, limit: 2, page: 2, total: 4 })

    // One ticket more (capacity raised): the head now wants 2, so nobody is served.
    expect((await adm.put(`/inventories/${inventoryId}`, { capacity: 4 })).statusCode).toBe(200)
    await serve()
    expect(ids(await list('?status=offered'))).toEqual([])

    // Staff offer it out of turn to e2; nothing is left for e1.
    const byHand = await adm.post(`/waiting-list/${e2.id}/offer`)
    expect(byHand.statusCode, byHand.body).toBe(200)
    expect(byHand.json()).toMatchObject({ id: e2.id, status: 'offered', position: null, offer_expires_at: expect.any(String) })
    expectError(await adm.post(`/waiting-list/${e1.id}/offer`), 409, 'insufficient_inventory')
    expect(ids(await list('?status=offered'))).toEqual([e2.id])
    expect(ids(await list('?status=waiting'))).toEqual([e3.id, e4.id, e1.id])
    expect(await standings(a, [e3, e4, e1])).toEqual([
      ['waiting', 1],
      ['waiting', 2],
      ['waiting', 3],
    ])
    await serve()
    await offerToken(e2.email)
    expect((await entry(a, e3.id)).status).toBe('waiting')
  })

  it('needs adm.orders.read to list and adm.orders.write to change, and answers 404 for unknown ids', async () => {
    const { inventory } = await soldOutRows(a)
    const waiting = await joined(a, inventory.id, 1)
    const catalogOnly = admClient(app, (await createStaff(app, { permissions: ['adm.catalog.read', 'adm.catalog.write'] })).auth)
    const reader = admClient(app, (await createStaff(app, { permissions: ['adm.orders.read'] })).auth)
    const anonymous = admClient(app, {})

    expectError(await catalogOnly.get(`/inventories/${inventory.id}/waiting-list`), 403, 'forbidden')
    expectError(await anonymous.get(`/inventories/${inventory.id}/waiting-list`), 401, 'unauthorized')
    expect((await reader.get(`/inventories/${inventory.id}/waiting-list`)).statusCode).toBe(200)
    expectError(await reader.put(`/waiting-list/${waiting.id}`, { priority: 3 }), 403, 'forbidden')
    expectError(await reader.post(`/waiting-list/${waiting.id}/offer`), 403, 'forbidden')
    expect(await entry(a, waiting.id)).toMatchObject({ status: 'waiting', priority: waiting.priority })

    expectError(await adm.get(`/inventories/${randomUUID()}/waiting-list`), 404, 'not_found')
    expectError(await adm.put(`/waiting-list/${randomUUID()}`, { priority: 1 }), 404, 'not_found')
    expectError(await adm.post(`/waiting-list/${randomUUID()}/offer`), 404, 'not_found')
    expectError(await adm.put(`/waiting-list/${waiting.id}`, { priority: 'high' }), 400, 'validation_error')
    expectError(await adm.get(`/inventories/${inventory.id}/waiting-list?status=sleeping`), 400, 'validation_error')
  })
})

describe('emails of entries', () => {
  it('are compared case-insensitively per seller and never shown to another seller', async () => {
    const mine = await soldOutRows(a)
    const theirs = await soldOutRows(b)
    const entryA = await joined(a, mine.inventory.id, 1, { email: 'Case.Check@Example.com' })
    expect(entryA.email.toLowerCase()).toBe('case.check@example.com')
    expectError(await join(a, { inventory_id: mine.inventory.id, quantity: 1, email: 'CASE.CHECK@example.COM' }), 409, 'already_waiting')
    // The same person at another seller is a separate entry, which seller a cannot see either.
    const entryB = await joined(b, theirs.inventory.id, 1, { email: 'case.check@example.com' })
    const unknown = errorBody(await getEntry(a, randomUUID()))
    for (const [seller, id] of [
      [a, entryB.id],
      [b, entryA.id],
    ] as const) {
      const res = await getEntry(seller, id)
      expect(res.statusCode).toBe(404)
      expect(errorBody(res)).toEqual(unknown)
      expect(res.body.toLowerCase()).not.toContain('case.check')
    }
  })
})

describe("offer emails in the seller's language and time zone", () => {
  /** The one offer email delivered to `address`, as a mail client shows it (subject and body decoded). */
  async function offerMail(seller: TestSeller, inventoryId: string, orderId: string, name: string | null) {
    const fan = await joined(seller, inventoryId, 1, name === null ? {} : { name })
    await cancelOrder(orderId)
    await serve()
    const offered = await entry(seller, fan.id)
    expect(offered.status).toBe('offered')
    await app.outbox.runOnce('email')
    const mails = sink.received.filter((m) => m.to.includes(fan.email))
    expect(mails).toHaveLength(1)
    return { mail: mails[0]!, expiresAt: new Date(offered.offer_expires_at!) }
  }

  /** The wall clock `offsetMinutes` from UTC at `instant`: day of the month, hours (0-23) and minutes. */
  function wallClock(instant: Date, offsetMinutes: number) {
    const local = new Date(instant.getTime() + offsetMinutes * 60_000)
    return { day: local.getUTCDate(), hours: local.getUTCHours(), minutes: String(local.getUTCMinutes()).padStart(2, '0') }
  }

  it('writes a pt-BR offer (the default) with its end on the São Paulo clock (UTC-3), not in UTC', async () => {
    // Seller a: default locale and time zone.
    const stock = await soldOut(a, [1])
    const { mail, expiresAt } = await offerMail(a, stock.inventory.id, stock.orders[0]!.id, 'Ana')
    expect(mail.subject).toBe('Loja A: seus ingressos estão à sua espera')
    expect(mail.text).toMatch(/^Olá, Ana,\n/)
    expect(mail.text).toContain('O ingresso que você esperava em Loja A está reservado para você.')
    const clock = wallClock(expiresAt, -180)
    expect(mail.text).toContain(`A oferta vale por 24 horas, até `)
    expect(mail.text).toMatch(new RegExp(` ${clock.day} de \\S+ de \\d{4} às ${String(clock.hours).padStart(2, '0')}:${clock.minutes}\\b`))
    expect(mail.text).not.toContain(expiresAt.toISOString().slice(0, 16))
    expect(mail.text).not.toContain('Hello')
  })

  it('writes an en offer with its end on the seller’s clock (Asia/Kolkata, UTC+5:30)', async () => {
    const shop = await createTestSeller(app, { name: 'Mumbai Tickets', settings: { locale: 'en', timezone: 'Asia/Kolkata', waiting_list_offer_minutes: 90 } })
    const stock = await soldOut(shop, [1])
    const { mail, expiresAt } = await offerMail(shop, stock.inventory.id, stock.orders[0]!.id, null)
    expect(mail.subject).toBe('Tickets are waiting for you at Mumbai Tickets')
    expect(mail.text).toMatch(/^Hello there,\n/)
    const clock = wallClock(expiresAt, 330)
    const hour12 = clock.hours % 12 === 0 ? 12 : clock.hours % 12
    expect(mail.text).toContain('The offer lasts 90 minutes, until ')
    expect(mail.text).toMatch(new RegExp(`\\w+ ${clock.day}, \\d{4} at ${hour12}:${clock.minutes}\\s${clock.hours < 12 ? 'AM' : 'PM'}`))
    expect(mail.text).not.toContain(expiresAt.toISOString().slice(0, 16))
  })
})

describe('abuse', () => {
  it('rate limits a flood of joins with random emails from one X-End-User-IP as registration is limited: 429 rate_limited', async () => {
    const shop = await createTestSeller(app)
    const { inventory } = await soldOutRows(shop, 1)
    const limit = app.config.stfRateLimits.emailPerIp
    const attacker = '203.0.113.77'
    const statuses: number[] = []
    let limited: LightMyRequestResponse | undefined
    for (let i = 0; i < limit + 5; i++) {
      const res = await join(shop, { inventory_id: inventory.id, quantity: 1, email: freshEmail('flood') }, { 'x-end-user-ip': attacker })
      statuses.push(res.statusCode)
      if (res.statusCode === 429) limited ??= res
    }
    expect(statuses.slice(0, limit)).toEqual(Array(limit).fill(201))
    expect(statuses.slice(limit)).toEqual(Array(5).fill(429))
    expectLimited(limited!)
    // Every other visitor of the shop still joins.
    expect((await join(shop, { inventory_id: inventory.id, quantity: 1, email: freshEmail() }, { 'x-end-user-ip': '198.51.100.8' })).statusCode).toBe(201)
  })
})

describe('races the precheck cannot see', () => {
  it('refuses under the locks a new basket whose precheck passed before someone joined: its own items are what it asks, not what it holds', async () => {
    const event = await createTestEvent(app, a.seller.id)
    const inventory = await createTestInventory(app, event, { capacity: 3, waitingList: true })
    await sellTickets(app, inventory.id, 2)
    // The join lands between a public buyer's precheck (1 free, nobody waiting) and its hold: the
    // last ticket was held when it joined, and its hold ran out since.
    const holder = await insertSignedInCustomer(app, a)
    const held = await openBasket(holder.headers, inventory.id, 1)
    expect(held.statusCode, held.body).toBe(201)
    await joined(a, inventory.id, 2)
    await backdateBasket(held.json().id)
    const opening = (asOpening: boolean) =>
      app.db.transaction(async (tx) => {
        const [basket] = await tx.insert(baskets).values({ sellerId: a.seller.id, status: 'open', expiresAt: sql`now() + interval '15 minutes'` }).returning()
        await tx.insert(basketItems).values({ basketId: basket!.id, inventoryId: inventory.id, quantity: 1 })
        await tx.execute(
          sql`select * from take_tickets(${a.seller.id}::uuid, array[${inventory.id}]::uuid[], array[1], ${basket!.id}::uuid, null, null, null, false, ${asOpening}, null)`,
        )
        throw new Error('rolled back')
      })
    // take_tickets refuses: SQLSTATE BX409, the tickets asked for do not fit.
    expect(sqlState(await opening(true).catch((error: unknown) => error))).toBe('BX409')
    // The same rows read as a basket that already held the ticket: it keeps it.
    await expect(opening(false)).rejects.toThrow('rolled back')
  })

  it('answers 410 to an accept whose offer lapsed and whose tickets another buyer holds since', async () => {
    const stock = await soldOut(a, [1])
    const fan = await joined(a, stock.inventory.id, 1)
    await cancelOrder(stock.orders[0]!.id)
    await serve()
    const token = await offerToken(fan.email)
    const offer = await app.db.execute<{ basket_id: string }>(sql`select basket_id from waiting_entries where id = ${fan.id}`)
    // The offer's hold ran out a moment before its entry says (an accept that began just before offer_expires_at).
    await backdateBasket(offer.rows[0]!.basket_id)
    const buyer = await insertSignedInCustomer(app, a)
    expect((await openBasket(buyer.headers, stock.inventory.id, 1)).statusCode).toBe(201)
    expectError(await accept(a, token), 410, 'offer_expired')
    expect(await admInventory(stock.event.id, stock.inventory.id)).toMatchObject({ held: 1, available: 0 })
  })

  it("leaves an inventory whose free tickets are reserved for the queue out of the event's lowest price", async () => {
    const stock = await soldOut(a, [1, 1])
    await createTestInventory(app, { id: stock.event.id, sellerId: a.seller.id }, { price: 9000, capacity: 10 })
    await joined(a, stock.inventory.id, 2)
    await cancelOrder(stock.orders[0]!.id)
    const listed = await app.inject({ method: 'GET', url: '/stf/v1/events?limit=100', headers: a.auth })
    const event = listed.json().data.find((e: { id: string }) => e.id === stock.event.id)
    expect(event.price.amount).toBe(9000)
  })

  it('answers waiting_list_closed to an offer by hand for a date that has passed', async () => {
    const stock = await soldOut(a, [1])
    const fan = await joined(a, stock.inventory.id, 1)
    await app.db.execute(sql`update inventories set date = ${dayFromToday(-2)} where id = ${stock.inventory.id}`)
    await cancelOrder(stock.orders[0]!.id)
    expectError(await adm.post(`/waiting-list/${fan.id}/offer`), 409, 'waiting_list_closed')
    expect((await entry(a, fan.id)).status).toBe('expired')
  })
})

describe('affiliates', () => {
  it("keeps an entry made under an affiliate code to that code, and makes its offer the affiliate's basket", async () => {
    const stock = await soldOut(a, [1])
    const inventoryId = stock.inventory.id
    const affiliate = await createTestAffiliate(app, a.seller.id)
    const other = await createTestAffiliate(app, a.seller.id)
    const under = (code: string) => ({ 'x-affiliate-code': code })
    const mine = await joined(a, inventoryId, 1, {}, under(affiliate.code))
    const unknown = errorBody(await getEntry(a, randomUUID()))
    for (const headers of [{}, under(other.code)]) {
      const res = await app.inject({ method: 'GET', url: `/stf/v1/waiting-list/${mine.id}`, headers: { ...a.auth, ...headers } })
      expect(res.statusCode).toBe(404)
      expect(errorBody(res)).toEqual(unknown)
      const left = await app.inject({ method: 'DELETE', url: `/stf/v1/waiting-list/${mine.id}`, headers: { ...a.auth, ...headers } })
      expect(left.statusCode).toBe(404)
    }
    const read = await app.inject({ method: 'GET', url: `/stf/v1/waiting-list/${mine.id}`, headers: { ...a.auth, ...under(affiliate.code) } })
    expect(read.json()).toMatchObject({ status: 'waiting', position: 1 })

    await cancelOrder(stock.orders[0]!.id)
    await serve()
    // The emailed link goes to the seller's storefront: the token alone accepts, and the basket says whose sale it is.
    const basket = await accept(a, await offerToken(mine.email))
    expect(basket.statusCode, basket.body).toBe(201)
    expect(basket.json()).toMatchObject({ affiliate_code: affiliate.code, items: [{ inventory_id: inventoryId, quantity: 1 }] })
    const customer = await insertSignedInCustomer(app, a)
    const order = await checkout({ ...customer.headers, ...under(affiliate.code) }, basket.json().id)
    expect(order).toMatchObject({ affiliate_code: affiliate.code })
  })
})

describe('turns', () => {
  it('are deleted once served, and those given up on are purged after the outbox retention, never a pending one', async () => {
    const stock = await soldOut(a, [1])
    const inventoryId = stock.inventory.id
    await joined(a, inventoryId, 1)
    await cancelOrder(stock.orders[0]!.id)
    const queued = await app.db.execute<{ status: string }>(sql`select status from waiting_list_turns where inventory_id = ${inventoryId}`)
    expect(queued.rows).toEqual([{ status: 'pending' }])
    expect(await serve()).toBeGreaterThanOrEqual(1)
    expect((await app.db.execute(sql`select 1 from waiting_list_turns where inventory_id = ${inventoryId}`)).rows).toEqual([])

    const old = sql`now() - make_interval(days => ${app.config.outboxRetentionDays + 1})`
    await app.db.execute(sql`insert into waiting_list_turns (inventory_id, status, created_at) values
      (${inventoryId}, 'failed', ${old}), (${inventoryId}, 'failed', now()), (${inventoryId}, 'pending', ${old})`)
    expect((await app.outbox.housekeep()).waiting_list).toBe(1)
    const left = await app.db.execute<{ status: string }>(sql`select status from waiting_list_turns where inventory_id = ${inventoryId} order by status`)
    expect(left.rows).toEqual([{ status: 'failed' }, { status: 'pending' }])
    await app.db.execute(sql`delete from waiting_list_turns where inventory_id = ${inventoryId}`)
  })
})
