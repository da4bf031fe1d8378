import { randomBytes } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import type { JSONWebKeySet } from 'jose'
import { PDFDocument } from 'pdf-lib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { customers } from '../../src/domain/customers/customers.table.js'
import type { Locale } from '../../src/domain/sellers/seller-settings.js'
import { buildTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestPlan, type TestRow } from '../factories/seating.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { pairedDevice, scanner } from '../support/checkin.js'
import { linkToken } from '../support/customer-auth.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { SmtpSink } from '../support/smtp-sink.js'
import { asAdmin } from '../support/staff.js'
import { verifyTicketCode } from '../support/verify-ticket-code.js'
import { drainWebhooks, WebhookReceiver } from '../support/webhook-receiver.js'
import { pdfText } from '../support/pdf-text.js'

/**
 * docs/seating.md: a seated ticket carries its seat everywhere a ticket is read (the Order and its
 * webhooks, the gates' answers, feed and search, the signed code, the PDF), and the waiting list
 * of a seated inventory offers seats.
 */
let app: FastifyInstance
let sink: SmtpSink
let receiver: WebhookReceiver
let adm: AdmClient
let seller: TestSeller

const STOREFRONT = 'https://teatro.example.com'

beforeAll(async () => {
  await resetDatabase(await testDatabase())
  sink = await SmtpSink.start()
  receiver = await WebhookReceiver.start()
  app = await buildTestApp({ env: { SMTP_URL: sink.url, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_RETRY_BASE_MS: '1' } })
  adm = admClient(app, (await asAdmin(app)).auth)
  // In UTC, a ticket dated dayFromToday(0) (a UTC date) enters whatever the hour.
  seller = await createTestSeller(app, { storefrontUrl: STOREFRONT, settings: { timezone: 'UTC' } })
})
afterAll(async () => {
  await app?.close()
  await sink?.stop()
  await receiver?.stop()
})

type Headers = Record<string, string>
type Seat = { id: string; zone: string; row: string; number: string; category: string }
type Ticket = { identifier: string; code: string; status: string; inventory_id: string; seat: Seat | null }
type Order = { id: string; items: { seats: Seat[] | null }[]; tickets: Ticket[] }

const seat = (row: string, number: number): Seat => ({ id: `${row}${number}`, zone: 'Plateia', row, number: String(number), category: 'Plateia' })

/** A published event selling the seats of one row of a new plan (its waiting list on, or not), dated `date`. */
async function seatedInventory(rows: TestRow[], { date = dayFromToday(7), waitingList = false } = {}) {
  const plan = await createTestPlan(app, seller.seller.id, rows)
  const event = await createTestEvent(app, seller.seller.id)
  const res = await adm.post(`/events/${event.id}/inventories`, { date, name: 'Plateia', price: 5000, seating: { plan_id: plan.id, category: 'Plateia' } })
  expect(res.statusCode, res.body).toBe(201)
  if (waitingList) expect((await adm.put(`/inventories/${res.json().id}`, { waiting_list: true })).statusCode).toBe(200)
  return { event, inventoryId: res.json().id as string }
}

const openBasket = (headers: Headers, items: object[]) => app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items } })

async function checkout(headers: Headers, basketId: string): Promise<Order> {
  const res = await app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/checkout`, headers, payload: { payment_method: 'pix' } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

/** A basket of these items and its checkout, by a new signed-in customer. */
async function buy(items: object[]): Promise<Order> {
  const customer = await insertSignedInCustomer(app, seller)
  const basket = await openBasket(customer.headers, items)
  expect(basket.statusCode, basket.body).toBe(201)
  return checkout(customer.headers, basket.json().id)
}

/** The text the PDF's pages draw (pdf-lib writes it as hex strings in Flate-compressed content streams). */

describe('a seated ticket', () => {
  let order: Order
  let unseated: Order
  let listId: string
  let gate: ReturnType<typeof scanner>

  beforeAll(async () => {
    const { event, inventoryId } = await seatedInventory([{ category: 'Plateia', seats: 8 }], { date: dayFromToday(0) })
    const general = await createTestInventory(app, event, { date: dayFromToday(0), capacity: 10 })
    await adm.post(`/sellers/${seller.seller.id}/webhooks`, { url: receiver.url('/seated'), events: ['order.confirmed'] })
    order = await buy([{ inventory_id: inventoryId, seats: ['A2', 'A3'] }])
    unseated = await buy([{ inventory_id: general.id, quantity: 1 }])
    const list = await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Main gate' })
    expect(list.statusCode, list.body).toBe(201)
    listId = list.json().id
    gate = scanner(app, (await pairedDevice(app, adm, seller.seller.id)).headers)
  })

  it('shows its seat in the Order, its signed code names it as [zone, row, number], and an unseated one shows none', async () => {
    expect(order.tickets.map((t) => t.seat)).toEqual([seat('A', 2), seat('A', 3)])
    expect(order.items[0]!.seats).toEqual([seat('A', 2), seat('A', 3)])
    const read = await app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: seller.auth })
    expect(read.json().tickets).toEqual(order.tickets)
    const keys = (await gate.get('/keys')).json() as JSONWebKeySet
    expect(await verifyTicketCode(order.tickets[0]!.code, keys)).toMatchObject({ tid: order.tickets[0]!.identifier, s: ['Plateia', 'A', '2'] })
    expect(unseated.tickets[0]!.seat).toBeNull()
    expect(await verifyTicketCode(unseated.tickets[0]!.code, keys)).not.toHaveProperty('s')
  })

  it('carries its seat in the order.confirmed webhook (the Order as the API answers it)', async () => {
    await drainWebhooks(app)
    const [got] = receiver.received.filter((r) => r.json.type === 'order.confirmed' && r.json.data.id === order.id)
    expect((got!.json.data as Order).tickets.map((t) => t.seat)).toEqual([seat('A', 2), seat('A', 3)])
  })

  it('shows its seat to the gate: the answer to a scan, the feed and the search', async () => {
    const [first, second] = order.tickets as [Ticket, Ticket]
    const answer = await gate.post('/redeem', { code: first.code, list_ids: [listId] })
    expect(answer.json()).toMatchObject({ status: 'ok', ticket: { identifier: first.identifier, seat: seat('A', 2) } })
    const byIdentifier = await gate.post('/redeem', { code: second.identifier, list_ids: [listId] })
    expect(byIdentifier.json()).toMatchObject({ status: 'ok', ticket: { seat: seat('A', 3) } })
    const again = await gate.post('/redeem', { code: first.code, list_ids: [listId] })
    expect(again.json()).toMatchObject({ status: 'refused', reason: 'already_redeemed', ticket: { seat: seat('A', 2) } })

    // On PostgreSQL the feed holds back changes while older transactions still run: read again until all three show (bounded).
    const expected = [first.identifier, second.identifier, unseated.tickets[0]!.identifier]
    let fed: Ticket[] = []
    for (let attempt = 0; attempt < 200 && !expected.every((id) => fed.some((t) => t.identifier === id)); attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25))
      const feed = await gate.get(`/lists/${listId}/tickets`)
      expect(feed.statusCode, feed.body).toBe(200)
      fed = feed.json().data
    }
    const seats = Object.fromEntries(fed.map((t) => [t.identifier, t.seat]))
    expect(seats).toEqual({ [first.identifier]: seat('A', 2), [second.identifier]: seat('A', 3), [unseated.tickets[0]!.identifier]: null })

    const found = await gate.get(`/search?list_id=${listId}&q=${first.identifier.slice(0, 8)}`)
    expect(found.json().data).toEqual([expect.objectContaining({ identifier: first.identifier, seat: seat('A', 2) })])
  })

  it('prints its seat on its PDF page', async () => {
    const res = await app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}/tickets.pdf`, headers: seller.auth })
    expect(res.statusCode).toBe(200)
    const text = pdfText(await PDFDocument.load(res.rawPayload))
    // Helvetica's WinAnsi: the middle dot is 0xB7, which latin1 reads back as it is. The seller's language: pt-BR, the default.
    expect(text).toContain('Plateia · Fila A · Assento 2')
    expect(text).toContain('Plateia · Fila A · Assento 3')
  })
})

describe('the PDF ticket', () => {
  /**
   * The text of the PDF of an order of seat A2 of a new seated event, dated Saturday 2030-06-15, of
   * a new seller in `locale`, bought by a customer named `holder`.
   */
  async function printed(locale: Locale, { title = 'Concerto', holder = ['Ana', 'Souza'] } = {}) {
    const owner = await createTestSeller(app, { settings: { locale } })
    const plan = await createTestPlan(app, owner.seller.id, [{ category: 'Plateia', seats: 4 }])
    const event = await createTestEvent(app, owner.seller.id, { title })
    const inventory = await adm.post(`/events/${event.id}/inventories`, {
      date: '2030-06-15',
      name: 'Plateia',
      price: 5000,
      seating: { plan_id: plan.id, category: 'Plateia' },
    })
    expect(inventory.statusCode, inventory.body).toBe(201)
    const customer = await insertSignedInCustomer(app, owner)
    await app.db.update(customers).set({ firstName: holder[0]!, lastName: holder[1]! }).where(eq(customers.id, customer.id))
    const basket = await openBasket(customer.headers, [{ inventory_id: inventory.json().id, seats: ['A2'] }])
    expect(basket.statusCode, basket.body).toBe(201)
    const order = await checkout(customer.headers, basket.json().id)
    const res = await app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}/tickets.pdf`, headers: owner.auth })
    expect(res.statusCode).toBe(200)
    const pdf = await PDFDocument.load(res.rawPayload)
    return { text: pdfText(pdf), title: pdf.getTitle(), order }
  }

  it('speaks a pt-BR seller’s language, as its map does: the seat, the date, the title', async () => {
    const { text, title, order } = await printed('pt-BR')
    expect(text).toContain('Plateia · Fila A · Assento 2')
    expect(text).toContain('sábado, 15 de junho de 2030')
    expect(title).toBe(`Ingressos, pedido ${order.id}`)
    expect(text).not.toMatch(/\b(Row|Seat|Saturday|June)\b/)
  })

  it('speaks English for an en seller', async () => {
    const { text, title, order } = await printed('en')
    expect(text).toContain('Plateia · Row A · Seat 2')
    expect(text).toContain('Saturday, June 15, 2030')
    expect(title).toBe(`Tickets, order ${order.id}`)
    expect(text).not.toMatch(/\b(Fila|Assento|sábado|junho)\b/)
  })

  it('leaves out what its font cannot draw, never printing "?", and prints Portuguese whole', async () => {
    const { text } = await printed('pt-BR', { title: 'Forró 🎉 de São João', holder: ['Conceição 😀', 'Pé-de-Moleque'] })
    expect(text).not.toContain('?')
    expect(text).toContain('Forró de São João')
    expect(text).toContain('Conceição Pé-de-Moleque')
    // A letter it lacks prints without its accent; another script's is left out too.
    const other = await printed('en', { title: 'Dvořák, Őrs and Łódź: ﬁnale 東京', holder: ['Zoë', 'Kowalska'] })
    expect(other.text).not.toContain('?')
    expect(other.text).toContain('Dvorák, Ors and ódz: finale')
    expect(other.text).toContain('Zoë Kowalska')
  })
})

describe('the waiting list of a seated inventory', () => {
  const join = (inventoryId: string, quantity: number) =>
    app.inject({
      method: 'POST',
      url: '/stf/v1/waiting-list',
      headers: seller.auth,
      payload: { inventory_id: inventoryId, quantity, email: `fila-${randomBytes(4).toString('hex')}@example.com` },
    })
  const serve = () => app.outbox.runOnce('waiting_list')
  const cancel = async (orderId: string) => expect((await adm.post(`/orders/${orderId}/cancel`)).statusCode).toBe(200)

  /** Delivers the outbox's emails and answers the token of the offer email to `address`. */
  async function offerToken(address: string): Promise<string> {
    await app.outbox.runOnce('email')
    const mail = sink.to(address).findLast((m) => m.includes('/waiting-list/accept?token='))
    expect(mail, `an offer email to ${address}`).toBeDefined()
    return linkToken(mail!, STOREFRONT, 'waiting-list/accept')
  }

  /** How each seat of the inventory stands (seat_standings.sql, the one rule), held seats with their basket. */
  async function standings(inventoryId: string) {
    const { rows } = await app.db.execute(sql`select seat_id, status, basket_id from seat_standings(${inventoryId}::uuid, null, null) order by seat_id`)
    return rows as { seat_id: string; status: string; basket_id: string | null }[]
  }

  const entryOf = async (id: string) => (await app.inject({ method: 'GET', url: `/stf/v1/waiting-list/${id}`, headers: seller.auth })).json()

  /** Accepts the offer emailed to `address` as a new signed-in customer, who then checks it out. */
  async function acceptAndBuy(address: string) {
    const token = await offerToken(address)
    const customer = await insertSignedInCustomer(app, seller)
    const accepted = await app.inject({ method: 'POST', url: '/stf/v1/waiting-list/accept', headers: customer.headers, payload: { token } })
    expect(accepted.statusCode, accepted.body).toBe(201)
    return { basket: accepted.json(), order: await checkout(customer.headers, accepted.json().id) }
  }

  it('offers adjacent seats when a block is free: the offer holds them, the accepted basket shows them and checks out with them', async () => {
    const { inventoryId } = await seatedInventory([{ category: 'Plateia', seats: 6 }], { waitingList: true })
    // Sold out in three orders of two best-available seats each: A3-A4 first (the middle), then A1-A2, then A5-A6.
    const orders = [await buy([{ inventory_id: inventoryId, quantity: 2 }])]
    orders.push(await buy([{ inventory_id: inventoryId, quantity: 2 }]), await buy([{ inventory_id: inventoryId, quantity: 2 }]))
    const middle = orders.find((o) => o.tickets[0]!.seat!.id === 'A3')!
    expect(middle.tickets.map((t) => t.seat!.id)).toEqual(['A3', 'A4'])

    const joined = await join(inventoryId, 2)
    expect(joined.statusCode, joined.body).toBe(201)
    const entry = joined.json() as { id: string; email: string }
    await cancel(middle.id)
    expect(await serve()).toBeGreaterThanOrEqual(1)
    expect(await entryOf(entry.id)).toMatchObject({ status: 'offered' })
    // The offer's basket holds the two seats: the seats agree with the count.
    const held = (await standings(inventoryId)).filter((s) => s.status === 'held')
    expect(held.map((s) => s.seat_id)).toEqual(['A3', 'A4'])
    expect(new Set(held.map((s) => s.basket_id)).size).toBe(1)

    const { basket, order } = await acceptAndBuy(entry.email)
    expect(basket.id).toBe(held[0]!.basket_id)
    expect(basket.items).toMatchObject([{ inventory_id: inventoryId, quantity: 2, seats: [seat('A', 3), seat('A', 4)] }])
    expect(order.tickets.map((t) => t.seat)).toEqual([seat('A', 3), seat('A', 4)])
    expect((await standings(inventoryId)).every((s) => s.status === 'sold')).toBe(true)
  })

  it('offers seats apart when no block is left; an entry wanting more than the free seats holds up the queue until it leaves', async () => {
    const { inventoryId } = await seatedInventory([{ category: 'Plateia', seats: 4 }], { waitingList: true })
    const orders: Order[] = []
    for (const id of ['A1', 'A2', 'A3', 'A4']) orders.push(await buy([{ inventory_id: inventoryId, seats: [id] }]))
    const head = (await join(inventoryId, 3)).json() as { id: string }
    const next = (await join(inventoryId, 2)).json() as { id: string; email: string }
    // Two seats come back, apart: the head (3) is not served, nor anyone behind it.
    await cancel(orders[0]!.id)
    await cancel(orders[3]!.id)
    await serve()
    expect(await entryOf(head.id)).toMatchObject({ status: 'waiting', position: 1 })
    expect(await entryOf(next.id)).toMatchObject({ status: 'waiting', position: 2 })
    expect((await standings(inventoryId)).filter((s) => s.status === 'held')).toEqual([])
    // The head leaves: the next entry (2) is offered the two seats, apart.
    expect((await app.inject({ method: 'DELETE', url: `/stf/v1/waiting-list/${head.id}`, headers: seller.auth })).statusCode).toBe(204)
    await app.waitingList.sweep()
    expect(await entryOf(next.id)).toMatchObject({ status: 'offered' })
    expect((await standings(inventoryId)).filter((s) => s.status === 'held').map((s) => s.seat_id)).toEqual(['A1', 'A4'])

    const { order } = await acceptAndBuy(next.email)
    expect(order.tickets.map((t) => t.seat!.id).sort()).toEqual(['A1', 'A4'])
  })
})
