import { readFileSync } from 'node:fs'
import { and, count, eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { compactVerify, createLocalJWKSet } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { customers } from '../../src/domain/customers/customers.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { transactions as ledgerEntries } from '../../src/domain/payments/payments.table.js'
import { tickets, ticketTransfers } from '../../src/domain/orders/orders.table.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { buildTestApp, useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { checkOut, subscribeToEverything } from '../factories/checkouts.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createSeatedInventory } from '../factories/seating.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import type { AdmClient } from '../support/adm-client.js'
import { checkinAdmin, feedPage, pairedDevice, scanner, useSellersInUtc } from '../support/checkin.js'
import { codeVersionOf } from '../support/code-version-of.js'
import { expectError, linkToken, postAuth } from '../support/customer-auth.js'
import { ledgerViolations } from '../support/ledger-invariants.js'
import { auditOf, soldOf, webhookPayloadsOf } from '../support/order-records.js'

/** docs/transfers.md: a ticket given to someone else gets a new identifier and code; the old one is dead at every gate. */
const ctx = useTestApp()
const [a, b] = useSellersInUtc(ctx)
let adm: AdmClient
let eventId: string
let inventoryId: string
let gate: ReturnType<typeof scanner>
let listId: string

type Ticket = {
  identifier: string
  status: string
  code: string | null
  code_version: number
  holder: { name: string }
  transferred_to: unknown
  seat: { id: string } | null
}
type Order = { id: string; status: string; customer_id: string | null; source: string; transferred_from: unknown; totals: { total: number }; tickets: Ticket[] }
type Buyer = { id: string; headers: Record<string, string> }

beforeAll(async () => {
  adm = await checkinAdmin(ctx.app)
  const event = await createTestEvent(ctx.app, a.seller.id)
  eventId = event.id
  // Today, at 23:59 (UTC): its gates are open now, and it may still be given until its time.
  inventoryId = (await createTestInventory(ctx.app, event, { date: dayFromToday(0), time: '23:59', price: 5000, capacity: 500 })).id
  const device = await pairedDevice(ctx.app, adm, a.seller.id)
  gate = scanner(ctx.app, device.headers)
  listId = (await adm.post(`/events/${eventId}/checkin-lists`, { name: 'Main gate' })).json().id
  await subscribeToEverything(ctx.app, a.seller.id)
})

afterAll(async () => {
  expect(await ledgerViolations(ctx.app.db)).toEqual([])
})

/** A new customer's order of `quantity` tickets, paid (or awaiting payment). */
async function buy(quantity = 1, inventory = inventoryId, options: { awaitPayment?: boolean } = {}): Promise<{ order: Order; buyer: Buyer }> {
  const { order, customer } = await checkOut(ctx.app, a, [{ inventoryId: inventory, quantity }], options)
  return { order: order as unknown as Order, buyer: customer }
}

const offer = (order: Order, identifier: string, headers: Record<string, string>, body: object = { email: 'bia@example.com', name: 'Bia Lima' }) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/orders/${order.id}/tickets/${identifier}/transfers`, headers, payload: body })

const answer = (verb: 'accept' | 'decline', token: string, headers: Record<string, string> = a.auth) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/transfers/${verb}`, headers, payload: { token } })

const readOrder = async (id: string, headers: Record<string, string> = a.auth): Promise<Order> => {
  const res = await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${id}`, headers })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** The token of the latest offer emailed to `email`. */
async function offeredToken(email: string): Promise<string> {
  const mails = await ctx.app.db
    .select({ text: outboxEmails.text })
    .from(outboxEmails)
    .where(and(eq(outboxEmails.kind, 'stf.transfer_offered'), eq(outboxEmails.to, email)))
    .orderBy(sql`${outboxEmails.createdAt} desc`)
  expect(mails.length).toBeGreaterThan(0)
  return linkToken(mails[0]!.text, a.seller.storefrontUrl.replace(/\/+$/, ''), 'transfer')
}

/** The token of a guest recipient's order, from the link emailed with the ticket. */
async function receivedOrderToken(email: string, orderId: string): Promise<string> {
  const [mail] = await ctx.app.db
    .select({ text: outboxEmails.text })
    .from(outboxEmails)
    .where(and(eq(outboxEmails.kind, 'stf.order_confirmed'), eq(outboxEmails.to, email)))
  return linkToken(mail!.text, a.seller.storefrontUrl.replace(/\/+$/, ''), `orders/${orderId}`)
}

/** A new recipient address, so that each test reads its own emails. */
let n = 0
const recipient = () => ({ email: `friend-${++n}-${Date.now()}@example.com`, name: `Friend ${n}` })

/** Offers the first ticket of a new order to a new recipient: the order, its buyer, the recipient and the token emailed. */
async function offered(quantity = 1) {
  const { order, buyer } = await buy(quantity)
  const to = recipient()
  const res = await offer(order, order.tickets[0]!.identifier, buyer.headers, to)
  expect(res.statusCode, res.body).toBe(201)
  return { order, buyer, to, transfer: res.json(), token: await offeredToken(to.email) }
}

const redeem = (code: string) => gate.post('/redeem', { code, list_ids: [listId] })

describe('POST /stf/v1/orders/{id}/tickets/{identifier}/transfers', () => {
  it('offers the ticket: 201 pending, the recipient emailed a link in the seller’s locale, listed on the order', async () => {
    const { order, buyer, to, transfer, token } = await offered()
    expect(transfer).toMatchObject({ order_id: order.id, identifier: order.tickets[0]!.identifier, status: 'pending', recipient: to })
    const expires = Date.parse(transfer.expires_at)
    // Today at 23:59 comes before 72 hours from now.
    expect(expires).toBe(Date.parse(`${dayFromToday(0)}T23:59:00Z`))
    expect(token).toMatch(/^tt_[\w-]{43}$/)
    // In the seller's language (pt-BR by default), with the sender's name.
    const [mail] = await ctx.app.db
      .select()
      .from(outboxEmails)
      .where(and(eq(outboxEmails.kind, 'stf.transfer_offered'), eq(outboxEmails.to, to.email)))
    expect(mail!.subject).toContain('enviou um ingresso para você')
    expect(mail!.text).toContain('quer transferir para você um ingresso')
    const list = await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}/transfers`, headers: buyer.headers })
    expect(list.statusCode).toBe(200)
    expect(list.json()).toEqual({ data: [transfer] })
    expect(await auditOf(ctx.app.db, 'stf.ticket.transfer_offered', order.id)).toHaveLength(1)
  })

  it('refuses the own buyer’s email, a 10 KB email, no name; another customer’s order is 404; without a token 401', async () => {
    const { order, buyer } = await buy()
    const id = order.tickets[0]!.identifier
    const own = await ctx.app.db.select({ email: customers.email }).from(customers).where(eq(customers.id, buyer.id))
    const self = await offer(order, id, buyer.headers, { email: own[0]!.email.toUpperCase(), name: 'Me' })
    expectError(self, 400, 'validation_error')
    expect(self.json().details).toEqual([expect.objectContaining({ path: 'email' })])
    expectError(await offer(order, id, buyer.headers, { email: `${'x'.repeat(10_000)}@example.com`, name: 'Long' }), 400, 'validation_error')
    expectError(await offer(order, id, buyer.headers, { email: 'ok@example.com', name: '  ' }), 400, 'validation_error')
    const other = await insertSignedInCustomer(ctx.app, a)
    expectError(await offer(order, id, other.headers), 404, 'not_found')
    expectError(await offer(order, 'NOTATICKET', buyer.headers), 404, 'not_found')
    expectError(await offer(order, id, a.auth), 401, 'unauthorized')
    // Another seller's credentials never reach this order.
    expectError(await offer(order, id, { ...b.auth, 'x-customer-token': buyer.headers['x-customer-token']! }), 401, 'invalid_token')
    expect(await ctx.app.db.select({ n: count() }).from(ticketTransfers).where(eq(ticketTransfers.orderId, order.id))).toEqual([{ n: 0 }])
  })

  it('one pending transfer per ticket: a second is 409 transfer_pending; after it expires, a new one may be offered', async () => {
    const { order, buyer, transfer } = await offered()
    const id = order.tickets[0]!.identifier
    expectError(await offer(order, id, buyer.headers, recipient()), 409, 'transfer_pending')
    // Its deadline passes (the clock the code reads is the database's).
    await ctx.app.db.update(ticketTransfers).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(ticketTransfers.id, transfer.id))
    const again = await offer(order, id, buyer.headers, recipient())
    expect(again.statusCode, again.body).toBe(201)
    const list = (await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}/transfers`, headers: buyer.headers })).json().data
    expect(list.map((t: { status: string }) => t.status)).toEqual(['expired', 'pending'])
  })

  it('refuses a voided, checked-in, not transferable or too-near ticket (409 ticket_not_transferable) and a pending order’s (409 order_pending)', async () => {
    const { order, buyer } = await buy(4)
    const [voided, checked, policy, near] = order.tickets.map((t) => t.identifier)
    expect((await adm.post(`/orders/${order.id}/tickets/${voided}/void`)).statusCode).toBe(200)
    expect((await redeem(checked!)).json()).toMatchObject({ status: 'ok' })
    expectError(await offer(order, voided!, buyer.headers, recipient()), 409, 'ticket_not_transferable')
    expectError(await offer(order, checked!, buyer.headers, recipient()), 409, 'ticket_not_transferable')

    await ctx.app.db.update(inventories).set({ transferable: false }).where(eq(inventories.id, inventoryId))
    try {
      expectError(await offer(order, policy!, buyer.headers, recipient()), 409, 'ticket_not_transferable')
    } finally {
      await ctx.app.db.update(inventories).set({ transferable: true }).where(eq(inventories.id, inventoryId))
    }
    // Closing 720 hours before a show tonight: closed.
    await ctx.app.db.update(inventories).set({ transferClosesHours: 720 }).where(eq(inventories.id, inventoryId))
    try {
      expectError(await offer(order, near!, buyer.headers, recipient()), 409, 'ticket_not_transferable')
    } finally {
      await ctx.app.db.update(inventories).set({ transferClosesHours: 0 }).where(eq(inventories.id, inventoryId))
    }

    const pending = await buy(1, inventoryId, { awaitPayment: true })
    expectError(await offer(pending.order, pending.order.tickets[0]!.identifier, pending.buyer.headers, recipient()), 409, 'order_pending')
  })
})

describe('POST /stf/v1/transfers/accept', () => {
  it('moves the ticket: a new identifier and code in a new order of the recipient; the old one revoked online and in the feed; no ledger row', async () => {
    const { order, buyer, to, token } = await offered(2)
    const old = order.tickets[0]!
    const ledgerBefore = await ctx.app.db.select({ n: count() }).from(ledgerEntries)
    const soldBefore = await soldOf(ctx.app.db, inventoryId)

    const res = await answer('accept', token)
    expect(res.statusCode, res.body).toBe(200)
    const accepted = res.json()
    expect(accepted.transfer).toMatchObject({ status: 'accepted', identifier: old.identifier })
    expect(accepted.ticket).toMatchObject({ status: 'valid', holder: { name: to.name }, code_version: 0 })
    expect(accepted.ticket.identifier).not.toBe(old.identifier)
    expect(accepted.ticket.code).toEqual(expect.any(String))

    // A guest order of the recipient (no account has the email), opened by the token emailed with it.
    const received = await readOrder(accepted.order_id)
    expect(received).toMatchObject({
      status: 'confirmed',
      source: 'transfer',
      transferred_from: { order_id: order.id, identifier: old.identifier },
      totals: { total: 0 },
    })
    const orderToken = await receivedOrderToken(to.email, accepted.order_id)
    expect(
      (await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${accepted.order_id}`, headers: { ...a.auth, 'x-order-token': orderToken } })).statusCode,
    ).toBe(200)

    // The sender's order shows it given, to the masked recipient; its other ticket is as it was.
    const sender = await readOrder(order.id, buyer.headers)
    expect(sender.tickets.find((t) => t.identifier === old.identifier)).toMatchObject({
      status: 'transferred',
      code: null,
      transferred_to: { name: to.name, email: `f***@example.com` },
    })
    expect(sender.tickets.find((t) => t.identifier === order.tickets[1]!.identifier)).toMatchObject({ status: 'valid' })
    const qr = await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}/tickets/${old.identifier}/qr.svg`, headers: buyer.headers })
    expectError(qr, 409, 'ticket_voided')

    // Dead at the gate, by code and by identifier; the new code enters.
    expect((await redeem(old.code!)).json()).toMatchObject({ status: 'refused', reason: 'invalid', ticket: null })
    expect((await redeem(old.identifier)).json()).toMatchObject({ status: 'refused', reason: 'invalid', ticket: null })
    const feed = await feedPage(gate, listId, undefined, [old.identifier, accepted.ticket.identifier])
    expect(feed.data.find((t) => t.identifier === old.identifier)).toMatchObject({ status: 'revoked' })
    expect(feed.data.find((t) => t.identifier === accepted.ticket.identifier)).toMatchObject({ status: 'valid', checked_in: false })
    expect((await redeem(accepted.ticket.code)).json()).toMatchObject({ status: 'ok' })

    // A transfer is not a sale.
    expect(await ctx.app.db.select({ n: count() }).from(ledgerEntries)).toEqual(ledgerBefore)
    expect(await soldOf(ctx.app.db, inventoryId)).toBe(soldBefore)
    expect(await webhookPayloadsOf(ctx.app.db, order.id, 'ticket.transferred')).toEqual([
      { old_identifier: old.identifier, identifier: accepted.ticket.identifier, from_order_id: order.id, order_id: accepted.order_id },
    ])
    const told = await ctx.app.db
      .select({ to: outboxEmails.to })
      .from(outboxEmails)
      .where(and(eq(outboxEmails.kind, 'stf.transfer_accepted'), sql`${outboxEmails.text} like ${`%${old.identifier}%`}`))
    expect(told).toHaveLength(1)
  })

  it('lands in the account that verified the recipient’s email, or the accepting customer’s', async () => {
    const { to, token } = await offered()
    const account = await insertSignedInCustomer(ctx.app, a)
    await ctx.app.db.update(customers).set({ email: to.email.toUpperCase(), emailVerifiedAt: sql`now()` }).where(eq(customers.id, account.id))
    const res = await answer('accept', token)
    expect(res.statusCode, res.body).toBe(200)
    expect((await readOrder(res.json().order_id)).customer_id).toBe(account.id)

    const second = await offered()
    const someone = await insertSignedInCustomer(ctx.app, a)
    const mine = await answer('accept', second.token, someone.headers)
    expect(mine.statusCode, mine.body).toBe(200)
    expect((await readOrder(mine.json().order_id, someone.headers)).customer_id).toBe(someone.id)
  })

  it('a guest recipient’s order joins the account that verifies the recipient’s email later', async () => {
    const { to, token } = await offered()
    const accepted = await answer('accept', token)
    expect(accepted.statusCode, accepted.body).toBe(200)
    const orderId = accepted.json().order_id as string
    expect((await readOrder(orderId)).customer_id).toBeNull()
    const registered = await postAuth(ctx.app, a, 'register', { email: to.email, password: 'a long password 1', first_name: 'Friend', last_name: 'Later' })
    expect(registered.statusCode, registered.body).toBe(201)
    const [mail] = await ctx.app.db
      .select({ text: outboxEmails.text })
      .from(outboxEmails)
      .where(and(eq(outboxEmails.to, to.email), eq(outboxEmails.kind, 'stf.verify_email')))
    const verify = linkToken(mail!.text, a.seller.storefrontUrl.replace(/\/+$/, ''), 'verify-email')
    expect((await postAuth(ctx.app, a, 'verify-email', { token: verify })).statusCode).toBe(200)
    expect((await readOrder(orderId)).customer_id).toBe(registered.json().customer.id)
  })

  it('answers an unknown, reused, guessed, declined or cancelled token alike: 404 not_found', async () => {
    const used = await offered()
    expect((await answer('accept', used.token)).statusCode).toBe(200)
    expectError(await answer('accept', used.token), 404, 'not_found')
    expectError(await answer('decline', used.token), 404, 'not_found')
    expectError(await answer('accept', `tt_${'A'.repeat(43)}`), 404, 'not_found')

    const declined = await offered()
    const res = await answer('decline', declined.token)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ status: 'declined' })
    expectError(await answer('accept', declined.token), 404, 'not_found')
    expect((await readOrder(declined.order.id)).tickets[0]).toMatchObject({ status: 'valid', code: declined.order.tickets[0]!.code })

    const cancelled = await offered()
    const del = await ctx.app.inject({ method: 'DELETE', url: `/stf/v1/transfers/${cancelled.transfer.id}`, headers: cancelled.buyer.headers })
    expect(del.statusCode, del.body).toBe(200)
    expect(del.json()).toMatchObject({ status: 'cancelled' })
    expectError(await answer('accept', cancelled.token), 404, 'not_found')

    const expired = await offered()
    await ctx.app.db.update(ticketTransfers).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(ticketTransfers.id, expired.transfer.id))
    expectError(await answer('accept', expired.token), 404, 'not_found')
    // The answer of another seller's credentials for a good token: the same 404.
    const other = await offered()
    expectError(await answer('accept', other.token, b.auth), 404, 'not_found')
  })

  it('20 concurrent accepts of one token: one new ticket', async () => {
    const { order, token } = await offered()
    const answers = await Promise.all(Array.from({ length: 20 }, () => answer('accept', token)))
    const codes = answers.map((res) => res.statusCode)
    expect(codes.filter((status) => status === 200)).toHaveLength(1)
    expect(codes.every((status) => status === 200 || status === 404 || status === 429)).toBe(true)
    const given = await ctx.app.db
      .select({ n: count() })
      .from(tickets)
      .where(eq(tickets.originTicketId, sql`(select id from tickets where identifier = ${order.tickets[0]!.identifier})`))
    expect(given).toEqual([{ n: 1 }])
  })

  it('an accept racing a check-in of the ticket: exactly one of them wins', async () => {
    for (let round = 0; round < 10; round++) {
      const { order, token } = await offered()
      const [accepted, scanned] = await Promise.all([answer('accept', token), redeem(order.tickets[0]!.code!)])
      const scanOk = scanned.json().status === 'ok'
      expect(scanOk !== (accepted.statusCode === 200), `${accepted.body} / ${scanned.body}`).toBe(true)
      if (!scanOk) expect(scanned.json()).toMatchObject({ status: 'refused', reason: 'invalid' })
      else expectError(accepted, 409, 'ticket_not_transferable')
    }
  })

  it('an accept racing a void of the ticket: the ticket ends void wherever it is, and never has two valid codes', async () => {
    for (let round = 0; round < 5; round++) {
      const { order, token } = await offered()
      const old = order.tickets[0]!
      const [accepted, voided] = await Promise.all([answer('accept', token), adm.post(`/orders/${order.id}/tickets/${old.identifier}/void`)])
      expect(voided.statusCode, voided.body).toBe(200)
      if (accepted.statusCode === 200) {
        // It moved first, then its sale was voided: the recipient's ticket is void too.
        expect((await readOrder(accepted.json().order_id)).tickets[0]).toMatchObject({ status: 'voided' })
      } else {
        // Voided first: its pending transfer ended with it, and the token is the unknown token.
        expectError(accepted, 404, 'not_found')
      }
      expect((await redeem(old.code!)).json()).toMatchObject({ status: 'refused' })
      const valid = await ctx.app.db.execute<{ n: number }>(
        sql`select count(*)::int as n from tickets t where (t.identifier = ${old.identifier} or t.origin_ticket_id = (select id from tickets where identifier = ${old.identifier})) and t.voided_at is null and t.transferred_at is null`,
      )
      expect(valid.rows[0]!.n).toBe(0)
    }
  })

  it('the sender’s refund in full voids the ticket wherever it went, and its holder is told', async () => {
    const { order, token, to } = await offered(2)
    const accepted = (await answer('accept', token)).json()
    // The recipient gives it on again.
    const next = recipient()
    const offeredOn = await offer(await readOrder(accepted.order_id), accepted.ticket.identifier, a.auth)
    expectError(offeredOn, 401, 'unauthorized')
    const orderToken = await receivedOrderToken(to.email, accepted.order_id)
    const again = await offer(await readOrder(accepted.order_id), accepted.ticket.identifier, { ...a.auth, 'x-order-token': orderToken }, next)
    expect(again.statusCode, again.body).toBe(201)
    const last = await answer('accept', await offeredToken(next.email))
    expect(last.statusCode, last.body).toBe(200)

    const soldBefore = await soldOf(ctx.app.db, inventoryId)
    const refund = await adm.post(`/orders/${order.id}/refunds`, { amount: 10000, reason: 'Show moved', reference: 'rf-transfer' })
    expect(refund.statusCode, refund.body).toBe(201)
    expect(await soldOf(ctx.app.db, inventoryId)).toBe(soldBefore - 2)
    expect((await readOrder(last.json().order_id)).tickets[0]).toMatchObject({ status: 'voided' })
    expect((await readOrder(accepted.order_id)).tickets[0]).toMatchObject({ status: 'voided' })
    expect((await redeem(last.json().ticket.code)).json()).toMatchObject({ status: 'refused', reason: 'voided' })
    const told = await ctx.app.db.select({ to: outboxEmails.to }).from(outboxEmails).where(eq(outboxEmails.kind, 'stf.transfer_voided'))
    expect(told.map((row) => row.to)).toContain(next.email)
    expect(told.map((row) => row.to)).not.toContain(to.email)
    expect(await webhookPayloadsOf(ctx.app.db, last.json().order_id, 'ticket.voided')).toEqual([
      expect.objectContaining({ identifier: last.json().ticket.identifier }),
    ])
  })

  it('a ticket received is voided on the order that sold it: elsewhere 409 ticket_sold_elsewhere', async () => {
    const { token, to } = await offered()
    const accepted = (await answer('accept', token)).json()
    expectError(await adm.post(`/orders/${accepted.order_id}/tickets/${accepted.ticket.identifier}/void`), 409, 'ticket_sold_elsewhere')
    expectError(await adm.post(`/orders/${accepted.order_id}/cancel`, {}), 409, 'ticket_sold_elsewhere')
    // Nor does its recipient withdraw from it: nothing was bought there.
    const orderToken = await receivedOrderToken(to.email, accepted.order_id)
    const withdrawn = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/orders/${accepted.order_id}/cancel`,
      headers: { ...a.auth, 'x-order-token': orderToken },
    })
    expectError(withdrawn, 409, 'ticket_sold_elsewhere')
    expect((await readOrder(accepted.order_id)).tickets[0]).toMatchObject({ status: 'valid' })
  })

  it('a seated ticket keeps its seat: the new ticket sits in it, and the sale undone frees it', async () => {
    const { inventory } = await createSeatedInventory(ctx.app, adm, a.seller.id, [{ category: 'Plateia', seats: 4 }])
    const { order, buyer } = await buy(1, inventory.id)
    const sold = order.tickets[0]!
    expect(sold.seat).not.toBeNull()
    const to = recipient()
    expect((await offer(order, sold.identifier, buyer.headers, to)).statusCode).toBe(201)
    const accepted = await answer('accept', await offeredToken(to.email))
    expect(accepted.statusCode, accepted.body).toBe(200)
    expect(accepted.json().ticket.seat).toEqual(sold.seat)
    const seatHolder = async () =>
      (
        await ctx.app.db.execute<{ identifier: string | null }>(
          sql`select t.identifier from inventory_seats s left join tickets t on t.id = s.ticket_id where s.inventory_id = ${inventory.id}::uuid and s.seat_id = ${sold.seat!.id}`,
        )
      ).rows[0]?.identifier ?? null
    expect(await seatHolder()).toBe(accepted.json().ticket.identifier)
    expect((await adm.post(`/orders/${order.id}/refunds`, { amount: 5000, reason: 'Cancelled', reference: `rf-${order.id}` })).statusCode).toBe(201)
    expect(await seatHolder()).toBeNull()
  })
})

describe('DELETE /stf/v1/transfers/{id}', () => {
  it('only the sender cancels; an answered transfer is 409 transfer_ended', async () => {
    const { buyer, transfer, token } = await offered()
    const other = await insertSignedInCustomer(ctx.app, a)
    expectError(await ctx.app.inject({ method: 'DELETE', url: `/stf/v1/transfers/${transfer.id}`, headers: other.headers }), 404, 'not_found')
    expectError(await ctx.app.inject({ method: 'DELETE', url: `/stf/v1/transfers/${transfer.id}`, headers: a.auth }), 401, 'unauthorized')
    expect((await answer('accept', token)).statusCode).toBe(200)
    expectError(await ctx.app.inject({ method: 'DELETE', url: `/stf/v1/transfers/${transfer.id}`, headers: buyer.headers }), 409, 'transfer_ended')
  })
})

describe('transfer tokens are rate-limited', () => {
  let limited: FastifyInstance
  let seller: TestSeller
  beforeAll(async () => {
    limited = await buildTestApp({ env: { STF_RATE_LIMIT_WINDOW_SECONDS: '60', STF_LOGIN_LIMIT_PER_IP: '3', STF_LIMIT_FACTOR_WITHOUT_END_USER_IP: '1' } })
    seller = await createTestSeller(limited)
  })
  afterAll(async () => {
    await limited?.close()
  })

  it('counts each unknown token per X-End-User-IP like a failed login: past the limit 429 with Retry-After, even for a right one', async () => {
    const attempt = (verb: 'accept' | 'decline', token: string, ip: string) =>
      limited.inject({ method: 'POST', url: `/stf/v1/transfers/${verb}`, headers: { ...seller.auth, 'x-end-user-ip': ip }, payload: { token } })
    const guesses = await Promise.all([1, 2, 3].map((n) => attempt(n === 2 ? 'decline' : 'accept', `tt_guess${n}`, '203.0.113.7')))
    expect(guesses.map((res) => res.statusCode)).toEqual([404, 404, 404])
    const blocked = await attempt('accept', 'tt_guess4', '203.0.113.7')
    expectError(blocked, 429, 'rate_limited')
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect((await attempt('accept', 'tt_guess5', '198.51.100.9')).statusCode).toBe(404)
  })
})

describe('docs/transfers.md, for partners who build their own scanners', () => {
  it('reads a code’s n with the very code the guide shows: absent at version 0, the feed’s code_version modulo 256 after, after a seat too', async () => {
    const reader = readFileSync(new URL('../support/code-version-of.ts', import.meta.url), 'utf8')
      .split('\n')
      .slice(1)
      .join('\n')
      .trim()
    expect(readFileSync(new URL('../../docs/transfers.md', import.meta.url), 'utf8')).toContain(`\`\`\`ts\n${reader}\n\`\`\``)
    const keys = createLocalJWKSet((await gate.get('/keys')).json())
    const n = async (code: string) => codeVersionOf((await compactVerify(code, keys, { algorithms: ['EdDSA'] })).payload)
    const { inventory } = await createSeatedInventory(ctx.app, adm, a.seller.id, [{ category: 'Plateia', seats: 2 }])
    const plain = (await buy(1)).order
    const seated = (await buy(1, inventory.id)).order
    const renewed: Ticket[] = []
    for (const order of [plain, seated]) {
      const [ticket] = order.tickets as [Ticket]
      expect(await n(ticket.code!)).toBe(0)
      // Version 257 (a re-issue's, a holder change's): the byte says 1, the version modulo 256.
      await ctx.app.db.update(tickets).set({ codeVersion: 257, changedXid: sql`pg_current_xact_id()` }).where(eq(tickets.identifier, ticket.identifier))
      renewed.push((await readOrder(order.id)).tickets[0]!)
      expect(renewed.at(-1)).toMatchObject({ identifier: ticket.identifier, code_version: 257 })
      expect(await n(renewed.at(-1)!.code!)).toBe(1)
    }
    // The gate's copy says 257, whose byte is 1: the older code is refused, the current one enters.
    const [old] = plain.tickets as [Ticket]
    const feed = await feedPage(gate, listId, undefined, [old.identifier])
    expect(feed.data.find((t) => t.identifier === old.identifier)).toMatchObject({ code_version: 257 })
    expect((await redeem(old.code!)).json()).toMatchObject({ status: 'refused', reason: 'invalid' })
    expect((await redeem(renewed[0]!.code!)).json()).toMatchObject({ status: 'ok' })
  })
})
