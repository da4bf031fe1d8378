import { and, desc, eq } from 'drizzle-orm'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { baskets } from '../../src/domain/baskets/baskets.table.js'
import { customers } from '../../src/domain/customers/customers.table.js'
import { couponRedemptions, orders } from '../../src/domain/orders/orders.table.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { buildTestApp, useTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestSeller, type TestSeller, useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { checkinAdmin, pairedDevice, scanner } from '../support/checkin.js'
import { expectError, linkToken, postAuth } from '../support/customer-auth.js'
import { ledgerViolations } from '../support/ledger-invariants.js'
import { auditOf, emailsAbout, soldOf } from '../support/order-records.js'
import { createStaff } from '../support/staff.js'

/** docs/selling.md: a guest's checkout, its order token, and the guest's orders joining an account that proves the email. */
const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx, { a: { name: 'Teatro Azul', storefrontUrl: 'https://azul.example.com/loja/', settings: { locale: 'en' } } })
let writer: AdmClient
let inventoryId: string
let bInventoryId: string

beforeAll(async () => {
  writer = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })).auth)
  const event = await createTestEvent(ctx.app, a.seller.id)
  inventoryId = (await createTestInventory(ctx.app, event, { date: dayFromToday(10), price: 5000, capacity: 1000 })).id
  bInventoryId = (await createTestInventory(ctx.app, await createTestEvent(ctx.app, b.seller.id), { date: dayFromToday(10), price: 5000 })).id
})

afterAll(async () => {
  expect(await ledgerViolations(ctx.app.db)).toEqual([])
})

type PlacedOrder = {
  id: string
  status: string
  customer_id: string | null
  buyer: { email: string; name: string }
  order_token?: string
  tickets: { identifier: string; status: string; code: string | null }[]
}

const openBasket = async (seller: TestSeller = a, headers: Record<string, string> = seller.auth, quantity = 1, inventory = inventoryId) => {
  const res = await ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items: [{ inventory_id: inventory, quantity }] } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().id as string
}

const checkout = (basketId: string, payload: object, headers: Record<string, string> = a.auth) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/checkout`, headers, payload })

const ana = { email: 'Ana.Guest@Example.com', name: 'Ana Souza' }

/** A guest's order: a basket of `quantity` tickets checked out with `buyer`, paid (or awaiting pix). */
async function guestOrder(options: { buyer?: { email: string; name: string }; awaitPayment?: boolean; quantity?: number; seller?: TestSeller } = {}) {
  const seller = options.seller ?? a
  const basketId = await openBasket(seller, seller.auth, options.quantity ?? 1, seller === b ? bInventoryId : inventoryId)
  const res = await checkout(
    basketId,
    { payment_method: 'pix', buyer: options.buyer ?? ana, ...(options.awaitPayment ? { await_payment: true } : {}) },
    seller.auth,
  )
  expect(res.statusCode, res.body).toBe(201)
  const order = res.json() as PlacedOrder
  return { order, token: order.order_token!, basketId }
}

const read = (orderId: string, headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${orderId}`, headers })
const withToken = (token: string, seller: TestSeller = a) => ({ ...seller.auth, 'x-order-token': token })

/** The 404 answer without what differs per request, to compare a wrong token's with an unknown order's. */
const notFoundShape = (res: LightMyRequestResponse) => {
  expect(res.statusCode, res.body).toBe(404)
  const { trace_id: _, ...rest } = res.json()
  return rest
}

describe('POST /stf/v1/baskets/{id}/checkout as a guest', () => {
  it('sells to the buyer, answers the order token once and stores only its hash', async () => {
    const { order, token } = await guestOrder()
    expect(order).toMatchObject({ status: 'confirmed', customer_id: null, buyer: ana })
    expect(token).toMatch(/^ot_[A-Za-z0-9_-]{43}$/)
    expect(order.tickets).toHaveLength(1)
    expect(order.tickets[0]!.code).toEqual(expect.any(String))
    const [row] = await ctx.app.db.select().from(orders).where(eq(orders.id, order.id))
    expect(row).toMatchObject({ customerId: null, buyerEmail: ana.email, buyerName: ana.name })
    expect(row!.orderTokenHash).toEqual(expect.any(String))
    expect(row!.orderTokenHash).not.toContain(token)
    // Reads never show it again.
    const again = await read(order.id, a.auth)
    expect(again.statusCode).toBe(200)
    expect(again.json()).not.toHaveProperty('order_token')
    const audit = await auditOf(ctx.app.db, 'stf.order.placed', order.id)
    expect(audit[0]).toMatchObject({ actorType: 'seller', actorId: a.seller.id })
  })

  it('emails the buyer its tickets with the link {storefront_url}/orders/{id}?token= that opens the order', async () => {
    const { order, token } = await guestOrder()
    const [mail] = await emailsAbout(ctx.app.db, 'stf.order_confirmed', order.id)
    expect(mail).toMatchObject({ to: ana.email, subject: 'Your tickets from Teatro Azul' })
    expect(mail!.text).toContain('Hello Ana,')
    expect(mail!.text).toContain(order.tickets[0]!.identifier)
    expect(linkToken(mail!.text, 'https://azul.example.com/loja', `orders/${order.id}`)).toBe(token)
    expect(mail!.text).not.toContain('in your account')
  })

  it('awaiting payment: the pending email carries the link; the token pays, reads and withdraws the order', async () => {
    const { order, token } = await guestOrder({ awaitPayment: true })
    expect(order).toMatchObject({ status: 'pending', customer_id: null })
    const [pendingMail] = await emailsAbout(ctx.app.db, 'stf.order_pending', order.id)
    expect(linkToken(pendingMail!.text, 'https://azul.example.com/loja', `orders/${order.id}`)).toBe(token)

    const paid = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/orders/${order.id}/payments`,
      headers: withToken(token),
      payload: { amount: 5000, reference: `pix-${order.id}` },
    })
    expect(paid.statusCode, paid.body).toBe(201)
    const [confirmedMail] = await emailsAbout(ctx.app.db, 'stf.order_confirmed', order.id)
    // The token is not kept, so the tickets' email after payment points to the first email's link.
    expect(confirmedMail!.text).toContain("the order's link from its first email")
    expect(confirmedMail!.text).not.toContain(token)

    const seen = await read(order.id, withToken(token))
    expect(seen.statusCode).toBe(200)
    expect(seen.json()).toMatchObject({ id: order.id, status: 'confirmed' })
    const identifier = seen.json().tickets[0].identifier
    for (const url of [
      `/orders/${order.id}/tickets/${identifier}/qr.svg`,
      `/orders/${order.id}/tickets/${identifier}/qr.png`,
      `/orders/${order.id}/tickets.pdf`,
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url: `/stf/v1${url}`, headers: withToken(token) })
      expect(res.statusCode, url).toBe(200)
    }

    const withdrawn = await ctx.app.inject({ method: 'POST', url: `/stf/v1/orders/${order.id}/cancel`, headers: withToken(token) })
    expect(withdrawn.statusCode, withdrawn.body).toBe(200)
    expect(withdrawn.json()).toMatchObject({ status: 'cancelled', refunds: [{ amount: 5000, status: 'pending' }] })
    const [refundMail] = await emailsAbout(ctx.app.db, 'stf.order_refunded', order.id)
    expect(refundMail!.to).toBe(ana.email)
  })

  it('withdrawing needs the order’s customer or its token: neither is 401, Basic alone is not enough', async () => {
    const { order } = await guestOrder()
    expectError(await ctx.app.inject({ method: 'POST', url: `/stf/v1/orders/${order.id}/cancel`, headers: a.auth }), 401, 'unauthorized')
    const stranger = await insertSignedInCustomer(ctx.app, a)
    expectError(await ctx.app.inject({ method: 'POST', url: `/stf/v1/orders/${order.id}/cancel`, headers: stranger.headers }), 404, 'not_found')
  })

  it('a guest ticket is scanned at the door with its holder, the buyer', async () => {
    const tonight = await createTestEvent(ctx.app, a.seller.id)
    const inventory = await createTestInventory(ctx.app, tonight, { date: dayFromToday(0) })
    const basketId = await openBasket(a, a.auth, 1, inventory.id)
    const placed = await checkout(basketId, { payment_method: 'pix', buyer: { email: 'door.guest@example.com', name: 'Bia Door' } })
    const order = placed.json() as PlacedOrder
    const adm = await checkinAdmin(ctx.app)
    const list = await adm.post(`/events/${tonight.id}/checkin-lists`, { name: 'Main' })
    expect(list.statusCode, list.body).toBe(201)
    const device = await pairedDevice(ctx.app, adm, a.seller.id)
    const res = await scanner(ctx.app, device.headers).post('/redeem', { code: order.tickets[0]!.code, list_ids: [list.json().id] })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json(), res.body).toMatchObject({ status: 'ok', ticket: { holder: { name: 'Bia Door' } } })
  })

  it('replays an Idempotency-Key with the order but not its token, which only the first answer shows', async () => {
    const basketId = await openBasket()
    const headers = { ...a.auth, 'idempotency-key': `guest-${basketId}` }
    const first = await checkout(basketId, { payment_method: 'pix', buyer: ana }, headers)
    expect(first.statusCode, first.body).toBe(201)
    expect(first.json().order_token).toEqual(expect.any(String))
    const replay = await checkout(basketId, { payment_method: 'pix', buyer: ana }, headers)
    expect(replay.statusCode).toBe(201)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect(replay.json().id).toBe(first.json().id)
    expect(replay.json()).not.toHaveProperty('order_token')
    // The first token still opens the order.
    expect((await read(first.json().id, withToken(first.json().order_token))).statusCode).toBe(200)
  })

  it('with a customer token, the order is the customer’s and `buyer` is ignored', async () => {
    const customer = await insertSignedInCustomer(ctx.app, a)
    const basketId = await openBasket(a, customer.headers)
    const res = await checkout(basketId, { payment_method: 'pix', buyer: { email: 'someone.else@example.com', name: 'Someone Else' } }, customer.headers)
    expect(res.statusCode, res.body).toBe(201)
    const [row] = await ctx.app.db.select().from(customers).where(eq(customers.id, customer.id))
    expect(res.json()).toMatchObject({ customer_id: customer.id, buyer: { email: row!.email, name: `${row!.firstName} ${row!.lastName}` } })
    expect(res.json()).not.toHaveProperty('order_token')
  })
})

describe('bad input: nothing sold', () => {
  const refusedWith = async (payload: object, status: number, code: string, path?: string) => {
    const basketId = await openBasket()
    const before = await soldOf(ctx.app.db, inventoryId)
    const res = await checkout(basketId, { payment_method: 'pix', ...payload })
    expectError(res, status, code)
    if (path) expect(res.json().details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]))
    expect(await soldOf(ctx.app.db, inventoryId)).toBe(before)
    const [basket] = await ctx.app.db.select({ status: baskets.status }).from(baskets).where(eq(baskets.id, basketId))
    expect(basket!.status).toBe('open')
  }

  it('a malformed email, a 10 KB email, no name, an empty name, no buyer at all: 400 with the path', async () => {
    await refusedWith({ buyer: { email: 'not-an-email', name: 'Ana' } }, 400, 'validation_error', 'buyer.email')
    await refusedWith({ buyer: { email: `${'a'.repeat(10_240)}@example.com`, name: 'Ana' } }, 400, 'validation_error', 'buyer.email')
    await refusedWith({ buyer: { email: 'ana@example.com' } }, 400, 'validation_error', 'buyer.name')
    await refusedWith({ buyer: { email: 'ana@example.com', name: '   ' } }, 400, 'validation_error', 'buyer.name')
    await refusedWith({ buyer: { email: 'ana@example.com', name: 'x'.repeat(201) } }, 400, 'validation_error', 'buyer.name')
    await refusedWith({}, 400, 'validation_error', 'buyer')
  })

  it('on a seller with guest_checkout off: 401, as before guests existed', async () => {
    const closed = await createTestSeller(ctx.app, { settings: { guest_checkout: false } })
    const event = await createTestEvent(ctx.app, closed.seller.id)
    const inventory = await createTestInventory(ctx.app, event, { date: dayFromToday(10), price: 1000 })
    const basketId = await openBasket(closed, closed.auth, 1, inventory.id)
    expectError(await checkout(basketId, { payment_method: 'pix', buyer: ana }, closed.auth), 401, 'unauthorized')
    expect(await soldOf(ctx.app.db, inventory.id)).toBe(0)
    const profile = await ctx.app.inject({ method: 'GET', url: '/stf/v1/seller', headers: closed.auth })
    expect(profile.json().settings.guest_checkout).toBe(false)
    expect((await ctx.app.inject({ method: 'GET', url: '/stf/v1/seller', headers: a.auth })).json().settings.guest_checkout).toBe(true)
  })

  it('a basket a customer opened is not a guest’s to check out', async () => {
    const customer = await insertSignedInCustomer(ctx.app, a)
    const basketId = await openBasket(a, customer.headers)
    expectError(await checkout(basketId, { payment_method: 'pix', buyer: ana }), 404, 'not_found')
  })
})

describe('X-Order-Token', () => {
  it('a wrong, another order’s or another seller’s token answers what an unknown order answers', async () => {
    const { order } = await guestOrder()
    const other = await guestOrder()
    const unknown = notFoundShape(await read('00000000-0000-4000-8000-000000000000', a.auth))
    expect(notFoundShape(await read(order.id, withToken('ot_wrong')))).toEqual(unknown)
    expect(notFoundShape(await read(order.id, withToken(other.token)))).toEqual(unknown)
    expect(notFoundShape(await read(order.id, withToken('x'.repeat(5000))))).toEqual(unknown)
    const elsewhere = await guestOrder({ seller: b })
    expect(notFoundShape(await read(elsewhere.order.id, withToken(elsewhere.token, a)))).toEqual(unknown)
    expect(notFoundShape(await read(order.id, withToken(elsewhere.token, b)))).toEqual(unknown)
    // Basic alone still reads any order of the seller: the partner's own server.
    expect((await read(order.id, a.auth)).statusCode).toBe(200)
    expect((await read(order.id, b.auth)).statusCode).toBe(404)
  })

  it('a wrong token on a payment, an image or a withdrawal is the same 404, and changes nothing', async () => {
    const { order } = await guestOrder({ awaitPayment: true })
    const headers = withToken('ot_guess')
    expectError(
      await ctx.app.inject({ method: 'POST', url: `/stf/v1/orders/${order.id}/payments`, headers, payload: { amount: 5000, reference: 'guess' } }),
      404,
      'not_found',
    )
    expectError(await ctx.app.inject({ method: 'POST', url: `/stf/v1/orders/${order.id}/cancel`, headers }), 404, 'not_found')
    expectError(await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}/tickets.pdf`, headers }), 404, 'not_found')
    const [row] = await ctx.app.db.select({ status: orders.status, paidTotal: orders.paidTotal }).from(orders).where(eq(orders.id, order.id))
    expect(row).toEqual({ status: 'pending', paidTotal: 0 })
  })
})

describe('POST /adm/v1/orders/{id}/order-token', () => {
  it('issues a new token, ends the old one, emails the new link and audits it', async () => {
    const { order, token } = await guestOrder()
    const res = await writer.post(`/orders/${order.id}/order-token`, {})
    expect(res.statusCode, res.body).toBe(201)
    const fresh = res.json().order_token as string
    expect(fresh).toMatch(/^ot_/)
    expect(fresh).not.toBe(token)
    expect((await read(order.id, withToken(token))).statusCode).toBe(404)
    expect((await read(order.id, withToken(fresh))).statusCode).toBe(200)
    const [mail] = await emailsAbout(ctx.app.db, 'stf.order_link', order.id)
    expect(mail).toMatchObject({ to: ana.email, subject: 'A new link to your Teatro Azul order' })
    expect(linkToken(mail!.text, 'https://azul.example.com/loja', `orders/${order.id}`)).toBe(fresh)
    expect(await auditOf(ctx.app.db, 'adm.order.token_reissued', order.id)).toHaveLength(1)
  })

  it('gives a customer’s order a token too; an unknown order is 404', async () => {
    const customer = await insertSignedInCustomer(ctx.app, a)
    const placed = await checkout(await openBasket(a, customer.headers), { payment_method: 'pix' }, customer.headers)
    const res = await writer.post(`/orders/${placed.json().id}/order-token`, {})
    expect(res.statusCode).toBe(201)
    expect((await read(placed.json().id, withToken(res.json().order_token))).statusCode).toBe(200)
    expectError(await writer.post('/orders/00000000-0000-4000-8000-000000000000/order-token', {}), 404, 'not_found')
  })
})

describe('guest orders join the account that proves the email', () => {
  const register = async (email: string) => {
    const res = await postAuth(ctx.app, a, 'register', { email, password: 'a long password 1', first_name: 'Ana', last_name: 'Souza' })
    expect(res.statusCode, res.body).toBe(201)
    return res.json().customer.id as string
  }
  const latestMail = async (to: string, kind: string) =>
    (
      await ctx.app.db
        .select({ text: outboxEmails.text })
        .from(outboxEmails)
        .where(and(eq(outboxEmails.to, to), eq(outboxEmails.kind, kind)))
        .orderBy(desc(outboxEmails.createdAt))
        .limit(1)
    )[0]!.text
  const ownerOf = async (orderId: string) =>
    (await ctx.app.db.select({ customerId: orders.customerId }).from(orders).where(eq(orders.id, orderId)))[0]!.customerId

  it('registration alone joins nothing (a squatter never gets them); the verification joins them, whatever the case', async () => {
    const email = 'join.me@example.com'
    const { order: first } = await guestOrder({ buyer: { email: 'JOIN.ME@example.com', name: 'Ana' } })
    const { order: second } = await guestOrder({ buyer: { email, name: 'Ana' }, awaitPayment: true })
    const { order: foreign } = await guestOrder({ buyer: { email, name: 'Ana' }, seller: b })
    const customerId = await register(email)
    expect(await ownerOf(first.id)).toBeNull()
    expect(await ownerOf(second.id)).toBeNull()

    const token = linkToken(await latestMail(email, 'stf.verify_email'), a.seller.storefrontUrl, 'verify-email')
    expect((await postAuth(ctx.app, a, 'verify-email', { token })).statusCode).toBe(200)
    expect(await ownerOf(first.id)).toBe(customerId)
    expect(await ownerOf(second.id)).toBe(customerId)
    expect(await ownerOf(foreign.id)).toBeNull() // another seller's customers are other accounts
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'stf.customer.guest_orders_joined'), eq(auditLog.targetId, customerId)))
    expect(audit?.data).toMatchObject({ order_ids: expect.arrayContaining([first.id, second.id]) })

    const login = await postAuth(ctx.app, a, 'login', { email, password: 'a long password 1' })
    expect(login.statusCode, login.body).toBe(200)
    const mine = await ctx.app.inject({ method: 'GET', url: '/stf/v1/orders', headers: { ...a.auth, 'x-customer-token': login.json().access_token } })
    expect(
      mine
        .json()
        .data.map((o: { id: string }) => o.id)
        .sort(),
    ).toEqual([first.id, second.id].sort())
  })

  it('an account whose owner never verifies never gets the orders; a magic link to the inbox does join them', async () => {
    const email = 'squatted@example.com'
    const { order } = await guestOrder({ buyer: { email, name: 'Owner' } })
    const customerId = await register(email)
    // The squatter asks for resends, signs in nowhere: nothing joins.
    await postAuth(ctx.app, a, 'verify-email/resend', { email })
    expect(await ownerOf(order.id)).toBeNull()
    // The inbox's owner signs in by a magic link: the first proof of the inbox.
    expect((await postAuth(ctx.app, a, 'magic-link', { email })).statusCode).toBe(200)
    const token = linkToken(await latestMail(email, 'stf.magic_link'), a.seller.storefrontUrl, 'magic-link')
    expect((await postAuth(ctx.app, a, 'magic-link/verify', { token })).statusCode).toBe(200)
    expect(await ownerOf(order.id)).toBe(customerId)
  })

  it('a guest order placed after the account is verified joins at the next proof (a password reset)', async () => {
    const email = 'later@example.com'
    await register(email)
    const verify = linkToken(await latestMail(email, 'stf.verify_email'), a.seller.storefrontUrl, 'verify-email')
    await postAuth(ctx.app, a, 'verify-email', { token: verify })
    const { order } = await guestOrder({ buyer: { email, name: 'Later' } })
    expect(await ownerOf(order.id)).toBeNull()
    expect((await postAuth(ctx.app, a, 'forgot-password', { email })).statusCode).toBe(200)
    const reset = linkToken(await latestMail(email, 'stf.reset_password'), a.seller.storefrontUrl, 'reset-password')
    expect((await postAuth(ctx.app, a, 'reset-password', { token: reset, password: 'another long password 2' })).statusCode).toBe(200)
    expect(await ownerOf(order.id)).not.toBeNull()
  })
})

describe('coupons limited per customer count a guest by its email', () => {
  it('a second guest checkout of the same email (another case) is refused the coupon; joining keeps the count', async () => {
    const coupon = await createTestCoupon(ctx.app, a.seller.id, { code: 'UMAVEZ', type: 'percent', value: 10, maxUsesPerCustomer: 1 })
    const withCoupon = async (email: string) => {
      const basketId = await openBasket()
      const applied = await ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/coupon`, headers: a.auth, payload: { code: coupon.code } })
      expect(applied.statusCode, applied.body).toBe(200)
      return checkout(basketId, { payment_method: 'pix', buyer: { email, name: 'Cupom' } })
    }
    const first = await withCoupon('coupon.once@example.com')
    expect(first.statusCode, first.body).toBe(201)
    expectError(await withCoupon('COUPON.ONCE@example.com'), 422, 'coupon_exhausted')
    expect((await withCoupon('coupon.other@example.com')).statusCode).toBe(201)
    const [redemption] = await ctx.app.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, first.json().id))
    expect(redemption).toMatchObject({ customerId: null })
  })
})

describe('order tokens tried by brute force', () => {
  let limited: FastifyInstance
  let seller: TestSeller

  beforeAll(async () => {
    // A second app over the same database, with a low limit of its own.
    limited = await buildTestApp({ env: { STF_RATE_LIMIT_WINDOW_SECONDS: '60', STF_LOGIN_LIMIT_PER_IP: '3', STF_LIMIT_FACTOR_WITHOUT_END_USER_IP: '1' } })
    seller = await createTestSeller(limited)
  })
  afterAll(async () => {
    await limited?.close()
  })

  it('counts each wrong token per X-End-User-IP like a failed login: past the limit 429 with Retry-After, even for the right token; other addresses go on', async () => {
    const event = await createTestEvent(limited, seller.seller.id)
    const inventory = await createTestInventory(limited, event, { date: dayFromToday(10), price: 1000 })
    const basket = await limited.inject({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers: seller.auth,
      payload: { items: [{ inventory_id: inventory.id, quantity: 1 }] },
    })
    const placed = await limited.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${basket.json().id}/checkout`,
      headers: seller.auth,
      payload: { payment_method: 'pix', buyer: ana },
    })
    const { id, order_token: token } = placed.json() as PlacedOrder
    const attempt = (guess: string, ip: string) =>
      limited.inject({ method: 'GET', url: `/stf/v1/orders/${id}`, headers: { ...seller.auth, 'x-order-token': guess, 'x-end-user-ip': ip } })
    // The right token is forgiven: it never uses up the limit.
    for (let n = 0; n < 5; n++) expect((await attempt(token!, '203.0.113.7')).statusCode).toBe(200)
    // Three wrong guesses at once are each counted before any is checked.
    const guesses = await Promise.all([1, 2, 3].map((n) => attempt(`ot_guess${n}`, '203.0.113.7')))
    expect(guesses.map((res) => res.statusCode)).toEqual([404, 404, 404])
    const blocked = await attempt(token!, '203.0.113.7')
    expectError(blocked, 429, 'rate_limited')
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect((await attempt('ot_guess4', '203.0.113.7')).statusCode).toBe(429)
    expect((await attempt(token!, '198.51.100.9')).statusCode).toBe(200)
  })
})
