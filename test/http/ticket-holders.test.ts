import { eq } from 'drizzle-orm'
import type { LightMyRequestResponse } from 'fastify'
import { PDFDocument } from 'pdf-lib'
import { beforeAll, describe, expect, it } from 'vitest'
import { tickets } from '../../src/domain/orders/orders.table.js'
import { useTestApp } from '../build-app.js'
import { subscribeToEverything } from '../factories/checkouts.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { checkinAdmin, feedPage, pairedDevice, scanner, useSellersInUtc } from '../support/checkin.js'
import { expectError } from '../support/customer-auth.js'
import { auditOf, webhookPayloadsOf } from '../support/order-records.js'
import { pdfText } from '../support/pdf-text.js'
import { createStaff } from '../support/staff.js'

/** docs/transfers.md: the buyer (and staff) name a ticket's holder; every change, and a re-issue, gives it a new code. */
const ctx = useTestApp()
const [a, b] = useSellersInUtc(ctx)
let adm: AdmClient
let reader: AdmClient
let gate: ReturnType<typeof scanner>
let inventoryId: string
let listId: string

type Ticket = {
  identifier: string
  status: string
  code: string | null
  code_version: number
  holder: { name: string; document: string | null }
}
type Order = { id: string; status: string; buyer: { name: string }; tickets: Ticket[]; order_token?: string }
type Bought = { order: Order; headers: Record<string, string> }

beforeAll(async () => {
  adm = await checkinAdmin(ctx.app)
  reader = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read'] })).auth)
  const event = await createTestEvent(ctx.app, a.seller.id)
  inventoryId = (await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 1000 })).id
  const list = await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Main gate' })
  expect(list.statusCode).toBe(201)
  listId = list.json().id
  gate = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id)).headers)
  await subscribeToEverything(ctx.app, a.seller.id)
})

/** A signed-in customer's checkout of `quantity` tickets (paid unless `awaitPayment`), with the customer's headers. */
async function buy(options: { quantity?: number; awaitPayment?: boolean; seller?: TestSeller; inventory?: string } = {}): Promise<Bought> {
  const seller = options.seller ?? a
  const customer = await insertSignedInCustomer(ctx.app, seller)
  const basket = await ctx.app.inject({
    method: 'POST',
    url: '/stf/v1/baskets',
    headers: customer.headers,
    payload: { items: [{ inventory_id: options.inventory ?? inventoryId, quantity: options.quantity ?? 1 }] },
  })
  expect(basket.statusCode, basket.body).toBe(201)
  const order = await ctx.app.inject({
    method: 'POST',
    url: `/stf/v1/baskets/${basket.json().id}/checkout`,
    headers: customer.headers,
    payload: { payment_method: 'pix', ...(options.awaitPayment ? { await_payment: true } : {}) },
  })
  expect(order.statusCode, order.body).toBe(201)
  return { order: order.json(), headers: customer.headers }
}

const putHolder = (orderId: string, identifier: string, body: unknown, headers: Record<string, string>) =>
  ctx.app.inject({ method: 'PUT', url: `/stf/v1/orders/${orderId}/tickets/${identifier}/holder`, headers, payload: body as object })
const admHolder = (identifier: string, body: unknown, client: AdmClient = adm) => client.put(`/tickets/${identifier}/holder`, body as object)
const reissue = (identifier: string, client: AdmClient = adm) => client.post(`/tickets/${identifier}/reissue`)
const redeem = (code: string, extra: Record<string, unknown> = {}) => gate.post('/redeem', { code, list_ids: [listId], ...extra })
const ticketRow = async (identifier: string) => (await ctx.app.db.select().from(tickets).where(eq(tickets.identifier, identifier)))[0]!
const readOrder = async (orderId: string, headers: Record<string, string>) =>
  (await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${orderId}`, headers })).json() as Order
const ok = (res: LightMyRequestResponse): Ticket => {
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
const expect400At = (res: LightMyRequestResponse, path: string) => {
  expectError(res, 400, 'validation_error')
  expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path)
}
/** The feed's cursor now: what the device has read so far. */
const cursorNow = async () => (await feedPage(gate, listId)).next_cursor

describe('PUT /stf/v1/orders/{id}/tickets/{identifier}/holder', () => {
  it('names the holder, its document masked, gives the ticket a new code, and the order shows it', async () => {
    const { order, headers } = await buy({ quantity: 2 })
    const [ticket, other] = order.tickets as [Ticket, Ticket]
    expect(ticket).toMatchObject({ code_version: 0, holder: { name: order.buyer.name, document: null } })

    const changed = ok(await putHolder(order.id, ticket.identifier, { name: '  Maria Silva  ', document: '12345678901' }, headers))
    expect(changed).toMatchObject({
      identifier: ticket.identifier,
      status: 'valid',
      code_version: 1,
      holder: { name: 'Maria Silva', document: '********901' },
    })
    expect(changed.code).toEqual(expect.any(String))
    expect(changed.code).not.toBe(ticket.code)
    expect(JSON.stringify(changed)).not.toContain('12345678901')

    const read = await readOrder(order.id, headers)
    expect(read.tickets.find((t) => t.identifier === ticket.identifier)).toEqual(changed)
    // The other ticket is as it was.
    expect(read.tickets.find((t) => t.identifier === other.identifier)).toEqual(other)
    expect(await ticketRow(ticket.identifier)).toMatchObject({ holderName: 'Maria Silva', holderDocument: '12345678901', holderChanges: 1, codeVersion: 1 })

    const [audit] = await auditOf(ctx.app.db, 'stf.ticket.holder_changed', order.id)
    expect(audit).toMatchObject({ actorType: 'customer', sellerId: a.seller.id, data: { identifier: ticket.identifier, code_version: 1, to: 'Maria Silva' } })
    expect(JSON.stringify(audit!.data)).not.toContain('12345678901')
  })

  it('writes a ticket.holder_changed webhook event with the holder’s name only, never the document', async () => {
    const { order, headers } = await buy()
    const identifier = order.tickets[0]!.identifier
    ok(await putHolder(order.id, identifier, { name: 'João Pereira', document: 'RG998877' }, headers))
    const events = await webhookPayloadsOf(ctx.app.db, order.id, 'ticket.holder_changed')
    expect(events).toHaveLength(1)
    expect(events[0]).toEqual({ identifier, order_id: order.id, holder: { name: 'João Pereira' }, code_version: 1 })
    expect(JSON.stringify(events[0])).not.toContain('998877')
  })

  it('refuses the old signed code as invalid at the gate and admits the new one; the feed carries the new version and holder', async () => {
    const { order, headers } = await buy()
    const old = order.tickets[0]!
    const cursor = await cursorNow()
    const changed = ok(await putHolder(order.id, old.identifier, { name: 'Carla Dias' }, headers))

    const page = await feedPage(gate, listId, cursor, [old.identifier])
    expect(page.data.find((t) => t.identifier === old.identifier)).toMatchObject({ status: 'valid', code_version: 1, holder: { name: 'Carla Dias' } })

    expect((await redeem(old.code!)).json()).toMatchObject({ status: 'refused', reason: 'invalid', ticket: null })
    expect((await redeem(changed.code!)).json()).toMatchObject({
      status: 'ok',
      ticket: { identifier: old.identifier, code_version: 1, holder: { name: 'Carla Dias' } },
    })
  })

  it('takes no document or a null one, trims the name, and refuses bad names and documents with 400 at their path', async () => {
    const { order, headers } = await buy()
    const identifier = order.tickets[0]!.identifier
    const withDocument = ok(await putHolder(order.id, identifier, { name: 'Ana', document: 'abc' }, headers))
    expect(withDocument.holder).toEqual({ name: 'Ana', document: 'abc' })
    expect(ok(await putHolder(order.id, identifier, { name: 'Ana', document: null }, headers)).holder).toEqual({ name: 'Ana', document: null })
    for (const name of ['', '   ', 'x'.repeat(201), 42, null]) expect400At(await putHolder(order.id, identifier, { name }, headers), 'name')
    expect400At(await putHolder(order.id, identifier, {}, headers), 'name')
    for (const document of ['ab', '1'.repeat(21), '123.456.789-01', 'AB 123', 'ção123', 12345678]) {
      expect400At(await putHolder(order.id, identifier, { name: 'Ana', document }, headers), 'document')
    }
    expectError(await putHolder(order.id, identifier, { name: 'Ana', age: 30 }, headers), 400, 'validation_error')
    // None of the refused ones changed anything.
    expect(await ticketRow(identifier)).toMatchObject({ holderName: 'Ana', holderDocument: null, codeVersion: 2, holderChanges: 2 })
  })

  it('changes nothing when the holder named is the one the ticket has: no new code, not counted', async () => {
    const { order, headers } = await buy()
    const ticket = order.tickets[0]!
    const same = ok(await putHolder(order.id, ticket.identifier, { name: order.buyer.name }, headers))
    expect(same).toEqual(ticket)
    const first = ok(await putHolder(order.id, ticket.identifier, { name: 'Bruno', document: '1234' }, headers))
    const again = ok(await putHolder(order.id, ticket.identifier, { name: 'Bruno', document: '1234' }, headers))
    expect(again).toEqual(first)
    expect(await ticketRow(ticket.identifier)).toMatchObject({ codeVersion: 1, holderChanges: 1 })
    expect(await webhookPayloadsOf(ctx.app.db, order.id, 'ticket.holder_changed')).toHaveLength(1)
  })

  it('allows the seller’s holder_changes_max changes per ticket (2 by default), then 409 holder_locked', async () => {
    const { order, headers } = await buy({ quantity: 2 })
    const [ticket, other] = order.tickets as [Ticket, Ticket]
    ok(await putHolder(order.id, ticket.identifier, { name: 'First' }, headers))
    ok(await putHolder(order.id, ticket.identifier, { name: 'Second' }, headers))
    const third = await putHolder(order.id, ticket.identifier, { name: 'Third' }, headers)
    expectError(third, 409, 'holder_locked')
    expect(third.json().details).toEqual({ holder_changes_max: 2 })
    expect(await ticketRow(ticket.identifier)).toMatchObject({ holderName: 'Second', codeVersion: 2, holderChanges: 2 })
    // The limit is per ticket.
    ok(await putHolder(order.id, other.identifier, { name: 'Other' }, headers))
  })

  it('counts against the seller’s own holder_changes_max: 0 allows none', async () => {
    const strict = await createTestSeller(ctx.app, { settings: { timezone: 'UTC', holder_changes_max: 0 } })
    const inventory = await createTestInventory(ctx.app, await createTestEvent(ctx.app, strict.seller.id), { date: dayFromToday(0) })
    const { order, headers } = await buy({ seller: strict, inventory: inventory.id })
    expectError(await putHolder(order.id, order.tickets[0]!.identifier, { name: 'Nobody' }, headers), 409, 'holder_locked')
    // Staff are not limited by it.
    expect(ok(await admHolder(order.tickets[0]!.identifier, { name: 'Somebody' })).holder.name).toBe('Somebody')
  })

  it('answers 409 holder_locked after the ticket’s first check-in, and allows it again once that check-in is annulled', async () => {
    const { order, headers } = await buy()
    const ticket = order.tickets[0]!
    expect((await redeem(ticket.code!, { nonce: `in-${ticket.identifier}` })).json().status).toBe('ok')
    const locked = await putHolder(order.id, ticket.identifier, { name: 'Too Late' }, headers)
    expectError(locked, 409, 'holder_locked')
    expectError(await admHolder(ticket.identifier, { name: 'Too Late' }), 409, 'holder_locked')
    expect(await ticketRow(ticket.identifier)).toMatchObject({ codeVersion: 0, holderName: null })

    expect((await gate.post('/annul', { list_id: listId, nonce: `in-${ticket.identifier}` })).statusCode).toBe(200)
    expect(ok(await putHolder(order.id, ticket.identifier, { name: 'In Time' }, headers)).code_version).toBe(1)
  })

  it('is not locked by a refused scan, nor by an exit', async () => {
    const { order, headers } = await buy()
    const ticket = order.tickets[0]!
    expect((await redeem(ticket.code!, { type: 'exit' })).json().status).toBe('ok')
    ok(await putHolder(order.id, ticket.identifier, { name: 'After Exit' }, headers))
    // The old code is refused (a refused scan), which locks nothing.
    expect((await redeem(ticket.code!)).json().reason).toBe('invalid')
    ok(await putHolder(order.id, ticket.identifier, { name: 'Still Free' }, headers))
  })

  it('answers 409 order_pending for a ticket of an order awaiting payment, and 409 ticket_voided for a voided one', async () => {
    const pending = await buy({ awaitPayment: true })
    expectError(await putHolder(pending.order.id, pending.order.tickets[0]!.identifier, { name: 'X' }, pending.headers), 409, 'order_pending')
    expectError(await admHolder(pending.order.tickets[0]!.identifier, { name: 'X' }), 409, 'order_pending')
    expectError(await reissue(pending.order.tickets[0]!.identifier), 409, 'order_pending')

    const { order, headers } = await buy({ quantity: 2 })
    const [voided, kept] = order.tickets as [Ticket, Ticket]
    expect((await adm.post(`/orders/${order.id}/tickets/${voided.identifier}/void`)).statusCode).toBe(200)
    const refused = await putHolder(order.id, voided.identifier, { name: 'X' }, headers)
    expectError(refused, 409, 'ticket_voided')
    expect(refused.json().details).toEqual({ status: 'voided' })
    expectError(await admHolder(voided.identifier, { name: 'X' }), 409, 'ticket_voided')
    expectError(await reissue(voided.identifier), 409, 'ticket_voided')

    expect((await adm.post(`/orders/${order.id}/cancel`)).statusCode).toBe(200)
    expectError(await putHolder(order.id, kept.identifier, { name: 'X' }, headers), 409, 'ticket_voided')
    expect(await ticketRow(kept.identifier)).toMatchObject({ codeVersion: 0, holderName: null })
  })

  it('needs the order’s customer or its order token: another customer’s order, an unknown order or identifier answer 404', async () => {
    const mine = await buy()
    const theirs = await buy()
    const identifier = mine.order.tickets[0]!.identifier
    expectError(await putHolder(mine.order.id, identifier, { name: 'X' }, a.auth), 401, 'unauthorized')
    expectError(await putHolder(mine.order.id, identifier, { name: 'X' }, theirs.headers), 404, 'not_found')
    expectError(await putHolder(theirs.order.id, identifier, { name: 'X' }, theirs.headers), 404, 'not_found')
    expectError(await putHolder(mine.order.id, 'NOSUCHTICKET', { name: 'X' }, mine.headers), 404, 'not_found')
    expectError(await putHolder('00000000-0000-4000-8000-000000000000', identifier, { name: 'X' }, mine.headers), 404, 'not_found')
    expectError(await putHolder('not-a-uuid', identifier, { name: 'X' }, mine.headers), 400, 'validation_error')
    // Another seller's credentials, with a customer of theirs.
    const stranger = await insertSignedInCustomer(ctx.app, b)
    expectError(await putHolder(mine.order.id, identifier, { name: 'X' }, stranger.headers), 404, 'not_found')
    expect(await ticketRow(identifier)).toMatchObject({ codeVersion: 0, holderName: null })
  })

  it('opens a guest’s order with its X-Order-Token; a wrong token answers 404', async () => {
    const basket = await ctx.app.inject({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers: a.auth,
      payload: { items: [{ inventory_id: inventoryId, quantity: 1 }] },
    })
    const placed = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${basket.json().id}/checkout`,
      headers: a.auth,
      payload: { payment_method: 'pix', buyer: { email: 'guest@example.com', name: 'Gustavo Guest' } },
    })
    expect(placed.statusCode, placed.body).toBe(201)
    const order = placed.json() as Order
    const identifier = order.tickets[0]!.identifier
    const changed = ok(await putHolder(order.id, identifier, { name: 'Gabriela', document: '55566677' }, { ...a.auth, 'x-order-token': order.order_token! }))
    expect(changed).toMatchObject({ code_version: 1, holder: { name: 'Gabriela', document: '*****677' } })
    const other = await buy()
    expectError(await putHolder(order.id, identifier, { name: 'X' }, { ...a.auth, 'x-order-token': 'not-this-orders-token' }), 404, 'not_found')
    expectError(
      await putHolder(other.order.id, other.order.tickets[0]!.identifier, { name: 'X' }, { ...a.auth, 'x-order-token': order.order_token! }),
      404,
      'not_found',
    )
    const [audit] = await auditOf(ctx.app.db, 'stf.ticket.holder_changed', order.id)
    expect(audit).toMatchObject({ actorType: 'seller', actorId: a.seller.id })
  })

  it('prints the new holder on the PDF ticket', async () => {
    const { order, headers } = await buy()
    ok(await putHolder(order.id, order.tickets[0]!.identifier, { name: 'Pedro Impresso' }, headers))
    const res = await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}/tickets.pdf`, headers })
    expect(res.statusCode).toBe(200)
    const text = pdfText(await PDFDocument.load(res.rawPayload))
    expect(text).toContain('Pedro Impresso')
    expect(text).not.toContain(order.buyer.name)
  })
})

describe('at once', () => {
  it('gives exactly holder_changes_max of 20 simultaneous changes of one ticket, the others 409 holder_locked', async () => {
    const { order, headers } = await buy()
    const identifier = order.tickets[0]!.identifier
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => putHolder(order.id, identifier, { name: `Holder ${n}` }, headers)))
    const statuses = answers.map((res) => res.statusCode)
    expect(statuses.filter((s) => s === 200)).toHaveLength(2)
    expect(answers.filter((res) => res.statusCode === 409 && res.json().code === 'holder_locked')).toHaveLength(18)
    const versions = answers.filter((res) => res.statusCode === 200).map((res) => res.json().code_version)
    expect(versions.sort()).toEqual([1, 2])
    expect(await ticketRow(identifier)).toMatchObject({ codeVersion: 2, holderChanges: 2 })
    expect(await webhookPayloadsOf(ctx.app.db, order.id, 'ticket.holder_changed')).toHaveLength(2)
  })

  it('a holder change and a check-in with the old code never both succeed', async () => {
    const { order, headers } = await buy({ quantity: 8 })
    for (const [n, ticket] of order.tickets.entries()) {
      // Scans from the gate sent before the change, after it, or around it, all with the code shown before.
      const before = n % 4
      const scans = Array.from({ length: 4 }, () => redeem(ticket.code!))
      const change = putHolder(order.id, ticket.identifier, { name: 'Racer' }, headers)
      const answers = await Promise.all([...scans.slice(0, before), change, ...scans.slice(before)])
      const changed = answers[before]!
      const admitted = answers.filter((res, i) => i !== before && res.json().status === 'ok')
      if (changed.statusCode === 200) {
        // The change came first: every scan of the old code is refused.
        expect(admitted).toEqual([])
        for (const [i, res] of answers.entries()) if (i !== before) expect(res.json().reason).toBe('invalid')
      } else {
        // A check-in came first: exactly one, and the holder stays.
        expectError(changed, 409, 'holder_locked')
        expect(admitted).toHaveLength(1)
      }
      expect((await ticketRow(ticket.identifier)).codeVersion).toBe(changed.statusCode === 200 ? 1 : 0)
    }
  })
})

describe('PUT /adm/v1/tickets/{identifier}/holder', () => {
  it('names the holder with the document whole, counts nothing against holder_changes_max, and is audited as staff', async () => {
    const { order, headers } = await buy()
    const identifier = order.tickets[0]!.identifier
    ok(await putHolder(order.id, identifier, { name: 'One' }, headers))
    ok(await putHolder(order.id, identifier, { name: 'Two' }, headers))
    expectError(await putHolder(order.id, identifier, { name: 'Three' }, headers), 409, 'holder_locked')
    const byStaff = ok(await admHolder(identifier, { name: 'Staff Named', document: '98765432100' }))
    expect(byStaff).toMatchObject({ identifier, code_version: 3, holder: { name: 'Staff Named', document: '98765432100' } })
    ok(await admHolder(identifier, { name: 'Staff Again' }))
    expect(await ticketRow(identifier)).toMatchObject({ codeVersion: 4, holderChanges: 2 })
    // The storefront shows the document staff gave masked.
    ok(await admHolder(identifier, { name: 'Staff Named', document: '98765432100' }))
    const read = await readOrder(order.id, headers)
    expect(read.tickets[0]!.holder).toEqual({ name: 'Staff Named', document: '********100' })
    // The back office's order reads show it whole.
    expect((await reader.get(`/orders/${order.id}`)).json().tickets[0].holder).toEqual({ name: 'Staff Named', document: '98765432100' })
    const listed = (await reader.get(`/sellers/${a.seller.id}/orders?limit=100`)).json().data.find((o: Order) => o.id === order.id)
    expect(listed.tickets[0].holder).toEqual({ name: 'Staff Named', document: '98765432100' })
    const audits = await auditOf(ctx.app.db, 'adm.ticket.holder_changed', order.id)
    expect(audits).toHaveLength(3)
    expect(audits[0]).toMatchObject({ actorType: 'staff', sellerId: a.seller.id })
    expect(await webhookPayloadsOf(ctx.app.db, order.id, 'ticket.holder_changed')).toHaveLength(5)
  })

  it('validates like the storefront’s; 404 for an unknown identifier; 403 without adm.orders.write', async () => {
    const { order } = await buy()
    const identifier = order.tickets[0]!.identifier
    expect400At(await admHolder(identifier, { name: ' ' }), 'name')
    expect400At(await admHolder(identifier, { name: 'A', document: '12' }), 'document')
    expectError(await admHolder('NOSUCHTICKET', { name: 'A' }), 404, 'not_found')
    expectError(await admHolder(identifier, { name: 'A' }, reader), 403, 'forbidden')
    expectError(await reissue(identifier, reader), 403, 'forbidden')
    expectError(await reissue('NOSUCHTICKET'), 404, 'not_found')
    expect(await ticketRow(identifier)).toMatchObject({ codeVersion: 0 })
  })

  it('reaches another seller’s ticket as every back-office order route does', async () => {
    const event = await createTestEvent(ctx.app, b.seller.id)
    const inventory = await createTestInventory(ctx.app, event, { date: dayFromToday(0) })
    const { order } = await buy({ seller: b, inventory: inventory.id })
    expect(ok(await admHolder(order.tickets[0]!.identifier, { name: 'B Holder' })).holder.name).toBe('B Holder')
    const [audit] = await auditOf(ctx.app.db, 'adm.ticket.holder_changed', order.id)
    expect(audit!.sellerId).toBe(b.seller.id)
  })
})

describe('POST /adm/v1/tickets/{identifier}/reissue', () => {
  it('keeps the identifier and holder with a new code: the old one is refused invalid, the feed carries the new version', async () => {
    const { order, headers } = await buy()
    const old = order.tickets[0]!
    const cursor = await cursorNow()
    const reissued = ok(await reissue(old.identifier))
    expect(reissued).toMatchObject({ identifier: old.identifier, status: 'valid', code_version: 1, holder: old.holder })
    expect(reissued.code).not.toBe(old.code)
    expect((await readOrder(order.id, headers)).tickets[0]!.code).toBe(reissued.code)

    const page = await feedPage(gate, listId, cursor, [old.identifier])
    expect(page.data.find((t) => t.identifier === old.identifier)).toMatchObject({ status: 'valid', code_version: 1 })
    expect((await redeem(old.code!)).json()).toMatchObject({ status: 'refused', reason: 'invalid' })
    expect((await redeem(reissued.code!)).json()).toMatchObject({ status: 'ok', ticket: { identifier: old.identifier, code_version: 1 } })

    const [audit] = await auditOf(ctx.app.db, 'adm.ticket.reissued', order.id)
    expect(audit).toMatchObject({ actorType: 'staff', data: { identifier: old.identifier, code_version: 1 } })
    // No holder changed: no webhook, nothing counted.
    expect(await webhookPayloadsOf(ctx.app.db, order.id, 'ticket.holder_changed')).toEqual([])
    expect(await ticketRow(old.identifier)).toMatchObject({ holderChanges: 0 })
  })

  it('re-issues a ticket already checked in: it stays checked in, and only its new code is recognised', async () => {
    const { order } = await buy()
    const old = order.tickets[0]!
    expect((await redeem(old.code!)).json().status).toBe('ok')
    const reissued = ok(await reissue(old.identifier))
    expect(reissued.code_version).toBe(1)
    expect((await redeem(old.code!)).json()).toMatchObject({ status: 'refused', reason: 'invalid' })
    expect((await redeem(reissued.code!)).json()).toMatchObject({ status: 'refused', reason: 'already_redeemed' })
    // The holder stays locked after the check-in, re-issue or not.
    expectError(await admHolder(old.identifier, { name: 'Late' }), 409, 'holder_locked')
  })

  it('shows the holder’s document whole', async () => {
    const { order, headers } = await buy()
    const identifier = order.tickets[0]!.identifier
    ok(await putHolder(order.id, identifier, { name: 'Doc Holder', document: 'ABC12345' }, headers))
    expect(ok(await reissue(identifier))).toMatchObject({ code_version: 2, holder: { name: 'Doc Holder', document: 'ABC12345' } })
  })
})
