import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { LightMyRequestResponse } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { useTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestCustomer, type TestCustomer } from '../factories/customers.js'
import { basicAuth, createTestAffiliate, createTestSeller, type TestSeller } from '../factories/sellers.js'
import { linkToken } from '../support/customer-auth.js'
import { asAdmin, createStaff, type TestStaff } from '../support/staff.js'

/**
 * Tenant isolation, resource by resource: seller A's credentials (its API key, a token of one
 * of its customers, one of its affiliate codes) can neither read, change nor detect an object
 * of seller B. Every attempt is answered exactly like the same request naming an object that
 * does not exist, and B's objects read the same before and after all of it.
 */
const ctx = useTestApp({ env: { STF_EMAIL_LIMIT_PER_IP: '10000', STF_EMAIL_LIMIT_PER_EMAIL: '10000', STF_LOGIN_LIMIT_PER_IP: '10000' } })

type Probe = { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; url: string; headers?: Record<string, string>; payload?: unknown }

type Side = {
  seller: TestSeller
  buyer: TestCustomer
  other: TestCustomer
  eventId: string
  eventSlug: string
  eventTitle: string
  inventoryId: string
  couponCode: string
  couponId: string
  affiliateCode: string
  affiliateId: string
  basketId: string
  basketItemId: string
  orderId: string
  ticket: string
}

let a: Side
let b: Side
let admin: TestStaff
let tokensOfB: { reset: string; magic: string; verify: string; refresh: string }
/** A pending refund of B's order, for A to try to confirm. */
let refundOfB: string

const call = (p: Probe) =>
  ctx.app.inject({
    method: p.method,
    url: p.url,
    ...(p.headers ? { headers: p.headers } : {}),
    ...(p.payload === undefined ? {} : { payload: p.payload as object }),
  })

async function furnish(code: string): Promise<Side> {
  const seller = await createTestSeller(ctx.app)
  const [buyer, other] = await Promise.all([createTestCustomer(ctx.app, seller), createTestCustomer(ctx.app, seller)])
  const title = `Festival ${code} ${randomUUID().slice(0, 8)}`
  const event = await createTestEvent(ctx.app, seller.seller.id, { title, slug: `festival-${code.toLowerCase()}-${randomUUID().slice(0, 8)}` })
  const inventory = await createTestInventory(ctx.app, event, { capacity: 1000 })
  const coupon = await createTestCoupon(ctx.app, seller.seller.id, { code: `SAVE${code}` })
  const affiliate = await createTestAffiliate(ctx.app, seller.seller.id, { code: `AFF${code}` })
  const open = async () => {
    const res = await call({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers: buyer.headers,
      payload: { items: [{ inventory_id: inventory.id, quantity: 2 }] },
    })
    expect(res.statusCode, res.body).toBe(201)
    return res.json() as { id: string; items: { id: string }[] }
  }
  const basket = await open()
  const sold = await open()
  const order = await call({ method: 'POST', url: `/stf/v1/baskets/${sold.id}/checkout`, headers: buyer.headers, payload: { payment_method: 'pix' } })
  expect(order.statusCode, order.body).toBe(201)
  return {
    seller,
    buyer,
    other,
    eventId: event.id,
    eventSlug: event.slug,
    eventTitle: title,
    inventoryId: inventory.id,
    couponCode: coupon.code,
    couponId: coupon.id,
    affiliateCode: affiliate.code,
    affiliateId: affiliate.id,
    basketId: basket.id,
    basketItemId: basket.items[0]!.id,
    orderId: order.json().id,
    ticket: order.json().tickets[0].identifier,
  }
}

/** The newest link to `page` in the outbox for `email`. */
async function outboxToken(email: string, storefrontUrl: string, page: string) {
  const rows = await ctx.app.db.select().from(outboxEmails).where(eq(outboxEmails.to, email))
  const mail = rows
    .filter((r) => r.text.includes(`/${page}?token=`))
    .sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime())
    .at(-1)
  return linkToken(mail!.text, storefrontUrl.replace(/\/+$/, ''), page)
}

/** What B can see of its own objects, through B's own credentials. */
async function viewOfB() {
  const stf = (url: string, headers: Record<string, string> = b.buyer.headers) => call({ method: 'GET', url, headers }).then((r) => [r.statusCode, r.json()])
  const adm = (url: string) => call({ method: 'GET', url: `/adm/v1${url}`, headers: admin.auth }).then((r) => [r.statusCode, r.json()])
  const keys = (await adm(`/sellers/${b.seller.seller.id}/api-keys`)) as [number, { data: Record<string, unknown>[] }]
  return {
    basket: await stf(`/stf/v1/baskets/${b.basketId}`),
    order: await stf(`/stf/v1/orders/${b.orderId}`),
    orders: await stf('/stf/v1/orders'),
    me: await stf('/stf/v1/me'),
    other: await stf('/stf/v1/me', b.other.headers),
    events: await stf('/stf/v1/events'),
    availability: await stf(`/stf/v1/events/${b.eventId}/availability`),
    seller: await adm(`/sellers/${b.seller.seller.id}`),
    coupons: await adm(`/sellers/${b.seller.seller.id}/coupons`),
    affiliates: await adm(`/sellers/${b.seller.seller.id}/affiliates`),
    // When a key was last used moves with every call of B's own: not part of what B owns.
    keys: [keys[0], keys[1].data.map(({ last_used_at: _, ...key }) => key)],
  }
}

let before: Awaited<ReturnType<typeof viewOfB>>

beforeAll(async () => {
  a = await furnish('A')
  b = await furnish('B')
  admin = await asAdmin(ctx.app)
  // B's single-use tokens, for A to try.
  for (const path of ['forgot-password', 'magic-link']) {
    const res = await call({ method: 'POST', url: `/stf/v1/auth/${path}`, headers: b.seller.auth, payload: { email: b.buyer.customer.email } })
    expect(res.statusCode).toBe(200)
  }
  const url = b.seller.seller.storefrontUrl
  tokensOfB = {
    reset: await outboxToken(b.buyer.customer.email, url, 'reset-password'),
    magic: await outboxToken(b.buyer.customer.email, url, 'magic-link'),
    verify: await outboxToken(b.other.customer.email, url, 'verify-email'),
    refresh: b.other.refreshToken,
  }
  const refund = await call({
    method: 'POST',
    url: `/adm/v1/orders/${b.orderId}/refunds`,
    headers: admin.auth,
    payload: { amount: 100, reason: 'A goodwill refund of B' },
  })
  expect(refund.statusCode, refund.body).toBe(201)
  refundOfB = refund.json().id
  before = await viewOfB()
})

/** Status, the headers a client could tell apart, and the body with the trace id and the named ids masked. */
function normalised(res: LightMyRequestResponse, ids: string[]) {
  let body = res.body
  for (const id of ids) body = body.split(id).join('<id>')
  const parsed = res.headers['content-type']?.toString().includes('json') ? (JSON.parse(body) as Record<string, unknown>) : body
  if (parsed && typeof parsed === 'object') {
    expect(parsed.trace_id ?? res.headers['x-trace-id']).toBe(res.headers['x-trace-id'])
    delete parsed.trace_id
  }
  return { status: res.statusCode, 'www-authenticate': res.headers['www-authenticate'], body: parsed }
}

/** The attempt on B's object answers exactly as the same request for an object that does not exist. */
async function expectSameAsMissing(attack: Probe, missing: Probe, ids: [string, string]) {
  const [onB, onNothing] = [await call(attack), await call(missing)]
  const [x, y] = [normalised(onB, ids), normalised(onNothing, ids)]
  expect(x, `${attack.method} ${attack.url}`).toEqual(y)
  expect(onB.statusCode, `${attack.method} ${attack.url}`).toBeGreaterThanOrEqual(200)
  return onB
}

const nobody = (): string => randomUUID()

describe('storefront resources of seller B, with seller A credentials', () => {
  const basketRoutes = (id: string, item = nobody()): Probe[] => [
    { method: 'GET', url: `/stf/v1/baskets/${id}` },
    { method: 'PATCH', url: `/stf/v1/baskets/${id}/items`, payload: { items: [{ inventory_id: a.inventoryId, quantity: 1 }] } },
    { method: 'POST', url: `/stf/v1/baskets/${id}/coupon`, payload: { code: a.couponCode } },
    { method: 'DELETE', url: `/stf/v1/baskets/${id}/coupon` },
    { method: 'POST', url: `/stf/v1/baskets/${id}/coupon/${item}`, payload: { code: a.couponCode } },
    { method: 'DELETE', url: `/stf/v1/baskets/${id}/coupon/${item}` },
    { method: 'POST', url: `/stf/v1/baskets/${id}/installments`, payload: { payment_method: 'credit_card' } },
    { method: 'POST', url: `/stf/v1/baskets/${id}/checkout`, payload: { payment_method: 'pix' } },
  ]

  it('events: detail by id and by slug, availability and search answer as for no event', async () => {
    const h = a.buyer.headers
    const missingId = nobody()
    await expectSameAsMissing(
      { method: 'GET', url: `/stf/v1/events/${b.eventId}`, headers: h },
      { method: 'GET', url: `/stf/v1/events/${missingId}`, headers: h },
      [b.eventId, missingId],
    )
    await expectSameAsMissing(
      { method: 'GET', url: `/stf/v1/events/${b.eventSlug}`, headers: h },
      { method: 'GET', url: `/stf/v1/events/festival-nothing-${missingId.slice(0, 8)}`, headers: h },
      [b.eventSlug, `festival-nothing-${missingId.slice(0, 8)}`],
    )
    await expectSameAsMissing(
      { method: 'GET', url: `/stf/v1/events/${b.eventId}/availability`, headers: h },
      { method: 'GET', url: `/stf/v1/events/${missingId}/availability`, headers: h },
      [b.eventId, missingId],
    )
    const search = await expectSameAsMissing(
      { method: 'GET', url: `/stf/v1/events?q=${encodeURIComponent(b.eventTitle)}`, headers: h },
      { method: 'GET', url: `/stf/v1/events?q=${encodeURIComponent(`Festival Z ${missingId}`)}`, headers: h },
      [encodeURIComponent(b.eventTitle), encodeURIComponent(`Festival Z ${missingId}`)],
    )
    expect(search.json().meta.total).toBe(0)
  })

  it("baskets: every basket route on B's basket answers as for no basket", async () => {
    const missing = nobody()
    const attacks = basketRoutes(b.basketId, b.basketItemId)
    const misses = basketRoutes(missing, missing)
    for (const [n, attack] of attacks.entries()) {
      const res = await expectSameAsMissing({ ...attack, headers: a.buyer.headers }, { ...misses[n]!, headers: a.buyer.headers }, [b.basketId, missing])
      expect(res.statusCode).toBe(404)
    }
    // ... and B's basket item, inside A's own basket.
    for (const [method, payload] of [
      ['POST', { code: a.couponCode }],
      ['DELETE', undefined],
    ] as const) {
      await expectSameAsMissing(
        { method, url: `/stf/v1/baskets/${a.basketId}/coupon/${b.basketItemId}`, headers: a.buyer.headers, payload },
        { method, url: `/stf/v1/baskets/${a.basketId}/coupon/${missing}`, headers: a.buyer.headers, payload },
        [b.basketItemId, missing],
      )
    }
  })

  it("inventories: B's inventory in a new or changed basket answers as an inventory that does not exist", async () => {
    const missing = nobody()
    const items = (id: string) => ({ items: [{ inventory_id: id, quantity: 1 }] })
    const created = await expectSameAsMissing(
      { method: 'POST', url: '/stf/v1/baskets', headers: a.buyer.headers, payload: items(b.inventoryId) },
      { method: 'POST', url: '/stf/v1/baskets', headers: a.buyer.headers, payload: items(missing) },
      [b.inventoryId, missing],
    )
    expect(created.statusCode).toBe(404)
    await expectSameAsMissing(
      { method: 'PATCH', url: `/stf/v1/baskets/${a.basketId}/items`, headers: a.buyer.headers, payload: items(b.inventoryId) },
      { method: 'PATCH', url: `/stf/v1/baskets/${a.basketId}/items`, headers: a.buyer.headers, payload: items(missing) },
      [b.inventoryId, missing],
    )
  })

  it("coupons: B's code on A's basket answers as an unknown code", async () => {
    const res = await expectSameAsMissing(
      { method: 'POST', url: `/stf/v1/baskets/${a.basketId}/coupon`, headers: a.buyer.headers, payload: { code: b.couponCode } },
      { method: 'POST', url: `/stf/v1/baskets/${a.basketId}/coupon`, headers: a.buyer.headers, payload: { code: 'SAVEZ' } },
      [b.couponCode, 'SAVEZ'],
    )
    expect(res.json().code).toBe('coupon_invalid')
  })

  it("orders and tickets: B's order is not found, not listed, and its tickets are unknown and stay unaccessed", async () => {
    const missing = nobody()
    for (const headers of [a.seller.auth, a.buyer.headers]) {
      await expectSameAsMissing({ method: 'GET', url: `/stf/v1/orders/${b.orderId}`, headers }, { method: 'GET', url: `/stf/v1/orders/${missing}`, headers }, [
        b.orderId,
        missing,
      ])
    }
    const mine = (await call({ method: 'GET', url: '/stf/v1/orders?limit=100', headers: a.buyer.headers })).json()
    expect(mine.data.map((o: { id: string }) => o.id)).toEqual([a.orderId])
    const download = (order_id: string, identifiers: string[], user_id?: string): Probe => ({
      method: 'POST',
      url: '/stf/v1/tickets/downloads',
      headers: a.seller.auth,
      payload: { order_id, identifiers, ...(user_id ? { user_id } : {}) },
    })
    await expectSameAsMissing(download(b.orderId, [b.ticket]), download(missing, [b.ticket]), [b.orderId, missing])
    await expectSameAsMissing(download(a.orderId, [a.ticket], b.buyer.customer.id), download(a.orderId, [a.ticket], missing), [b.buyer.customer.id, missing])
    const madeUp = 'TICKETTHATDOESNOTEXIST0000'
    const res = await expectSameAsMissing(download(a.orderId, [b.ticket]), download(a.orderId, [madeUp]), [b.ticket, madeUp])
    expect(res.json()).toEqual({ registered: 0, first_access: [], unknown: [b.ticket], voided: [] })
  })

  it("withdrawal and refunds: B's order cannot be withdrawn from, nor B's refund confirmed", async () => {
    const missing = nobody()
    for (const headers of [a.buyer.headers, a.other.headers]) {
      const res = await expectSameAsMissing(
        { method: 'POST', url: `/stf/v1/orders/${b.orderId}/cancel`, headers },
        { method: 'POST', url: `/stf/v1/orders/${missing}/cancel`, headers },
        [b.orderId, missing],
      )
      expect(res.statusCode).toBe(404)
    }
    // A's buyer cannot withdraw from an order of A's other buyer either.
    const ofOther = await call({ method: 'POST', url: `/stf/v1/orders/${a.orderId}/cancel`, headers: a.other.headers })
    expect(ofOther.statusCode).toBe(404)
    const confirm = (id: string): Probe => ({ method: 'POST', url: `/stf/v1/refunds/${id}/confirm`, headers: a.seller.auth, payload: { reference: 'stolen' } })
    expect((await expectSameAsMissing(confirm(refundOfB), confirm(missing), [refundOfB, missing])).statusCode).toBe(404)
  })

  it("customers: B's customer cannot be signed out, signed in, mailed or registered over", async () => {
    const missing = nobody()
    await expectSameAsMissing(
      { method: 'DELETE', url: `/stf/v1/auth/logout?user_id=${b.buyer.customer.id}`, headers: a.seller.auth },
      { method: 'DELETE', url: `/stf/v1/auth/logout?user_id=${missing}`, headers: a.seller.auth },
      [b.buyer.customer.id, missing],
    )
    const ghost = `ghost-${missing}@example.com`
    await expectSameAsMissing(
      { method: 'POST', url: '/stf/v1/auth/login', headers: a.seller.auth, payload: { email: b.buyer.customer.email, password: b.buyer.password } },
      { method: 'POST', url: '/stf/v1/auth/login', headers: a.seller.auth, payload: { email: ghost, password: b.buyer.password } },
      [b.buyer.customer.email, ghost],
    )
    const mailsToB = async () => (await ctx.app.db.select().from(outboxEmails).where(eq(outboxEmails.to, b.buyer.customer.email))).length
    const queued = await mailsToB()
    for (const path of ['forgot-password', 'magic-link']) {
      await expectSameAsMissing(
        { method: 'POST', url: `/stf/v1/auth/${path}`, headers: a.seller.auth, payload: { email: b.buyer.customer.email } },
        { method: 'POST', url: `/stf/v1/auth/${path}`, headers: a.seller.auth, payload: { email: ghost } },
        [b.buyer.customer.email, ghost],
      )
    }
    expect(await mailsToB()).toBe(queued)
    // The same address at A is a separate account: registering it tells nothing about B.
    const taken = await call({
      method: 'POST',
      url: '/stf/v1/auth/register',
      headers: a.seller.auth,
      payload: { email: b.buyer.customer.email.toUpperCase(), password: 'another long passphrase', first_name: 'Not', last_name: 'B' },
    })
    expect(taken.statusCode, taken.body).toBe(201)
    expect(taken.json().customer.id).not.toBe(b.buyer.customer.id)
  })

  it("tokens: B's refresh, reset, magic-link and verification tokens and B's customer token are refused like forged ones, and stay usable by B", async () => {
    const forged = 'x'.repeat(43)
    const posts: [string, Record<string, string>][] = [
      ['refresh', { refresh_token: tokensOfB.refresh }],
      ['reset-password', { token: tokensOfB.reset, password: 'a new long passphrase' }],
      ['magic-link/verify', { token: tokensOfB.magic }],
      ['verify-email', { token: tokensOfB.verify }],
    ]
    for (const [path, payload] of posts) {
      const token = payload.refresh_token ?? payload.token!
      const res = await expectSameAsMissing(
        { method: 'POST', url: `/stf/v1/auth/${path}`, headers: a.seller.auth, payload },
        {
          method: 'POST',
          url: `/stf/v1/auth/${path}`,
          headers: a.seller.auth,
          payload: Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, v === token ? forged : v])),
        },
        [token, forged],
      )
      expect(res.json().code).toBe('invalid_token')
    }
    const [header, payload, signature] = b.buyer.accessToken.split('.')
    const tampered = `${header}.${payload}.${signature!.slice(0, -2)}xx`
    for (const probe of [
      { method: 'GET', url: '/stf/v1/me' },
      { method: 'GET', url: '/stf/v1/orders' },
      { method: 'POST', url: `/stf/v1/baskets/${a.basketId}/checkout`, payload: { payment_method: 'pix' } },
    ] as Probe[]) {
      await expectSameAsMissing(
        { ...probe, headers: { ...a.seller.auth, 'x-customer-token': b.buyer.accessToken } },
        { ...probe, headers: { ...a.seller.auth, 'x-customer-token': tampered } },
        [b.buyer.accessToken, tampered],
      )
    }
    // Nothing A tried used up or revoked anything of B's.
    const asB = (path: string, body: object) => call({ method: 'POST', url: `/stf/v1/auth/${path}`, headers: b.seller.auth, payload: body })
    expect((await asB('refresh', { refresh_token: tokensOfB.refresh })).statusCode).toBe(200)
    expect((await asB('magic-link/verify', { token: tokensOfB.magic })).statusCode).toBe(200)
    expect((await asB('verify-email', { token: tokensOfB.verify })).statusCode).toBe(200)
    expect((await asB('reset-password', { token: tokensOfB.reset, password: 'b chose this passphrase' })).statusCode).toBe(200)
    // B's reset ended B's sessions, access tokens included; B signs in again for the final comparison.
    expect((await call({ method: 'GET', url: '/stf/v1/me', headers: b.buyer.headers })).statusCode).toBe(401)
    const again = await asB('login', { email: b.buyer.customer.email, password: 'b chose this passphrase' })
    expect(again.statusCode, again.body).toBe(200)
    b.buyer.headers['x-customer-token'] = again.json().access_token
  })

  it("affiliates: B's affiliate code, or B's seller id with A's key, answers as an unknown one", async () => {
    const res = await expectSameAsMissing(
      { method: 'GET', url: '/stf/v1/events', headers: { ...a.seller.auth, 'x-affiliate-code': b.affiliateCode } },
      { method: 'GET', url: '/stf/v1/events', headers: { ...a.seller.auth, 'x-affiliate-code': 'AFFZ' } },
      [b.affiliateCode, 'AFFZ'],
    )
    expect(res.json().code).toBe('invalid_affiliate')
    const wrong = await expectSameAsMissing(
      { method: 'GET', url: '/stf/v1/seller', headers: basicAuth(b.seller.seller.id, a.seller.apiKey) },
      { method: 'GET', url: '/stf/v1/seller', headers: basicAuth(b.seller.seller.id, `sk_${'x'.repeat(43)}`) },
      [a.seller.apiKey, `sk_${'x'.repeat(43)}`],
    )
    expect(wrong.statusCode).toBe(401)
  })

  it('ids in queries and headers never widen the scope', async () => {
    const events = (query: string) => call({ method: 'GET', url: `/stf/v1/events${query}`, headers: a.seller.auth }).then((r) => r.json())
    expect(await events(`?seller_id=${b.seller.seller.id}`)).toEqual(await events(''))
    const orders = (query: string) => call({ method: 'GET', url: `/stf/v1/orders${query}`, headers: a.buyer.headers }).then((r) => r.json())
    expect(await orders(`?customer_id=${b.buyer.customer.id}&seller_id=${b.seller.seller.id}`)).toEqual(await orders(''))
    // An Idempotency-Key is per seller: B's key replays nothing for A.
    const key = `key-${randomUUID()}`
    const open = (side: Side, inventory: string) =>
      call({
        method: 'POST',
        url: '/stf/v1/baskets',
        headers: { ...side.seller.auth, 'idempotency-key': key },
        payload: { items: [{ inventory_id: inventory, quantity: 1 }] },
      })
    const ofB = await open(b, b.inventoryId)
    expect(ofB.statusCode).toBe(201)
    // Even with B's very body, A gets a 404 for B's inventory, not B's stored answer...
    expect((await open(a, b.inventoryId)).statusCode).toBe(404)
    // ... and with its own body, a basket of its own.
    const ofA = await open(a, a.inventoryId)
    expect(ofA.statusCode).toBe(201)
    expect(ofA.json().id).not.toBe(ofB.json().id)
    expect(ofA.headers['idempotent-replayed']).toBeUndefined()
    // B lets its ticket go again, so that B's availability reads as before at the end.
    const released = await call({
      method: 'PATCH',
      url: `/stf/v1/baskets/${ofB.json().id}/items`,
      headers: b.seller.auth,
      payload: { items: [{ inventory_id: b.inventoryId, quantity: 0 }] },
    })
    expect(released.statusCode).toBe(200)
  })

  it('refuses mass-assigned fields (seller, price, status, totals, verification) with 400 and changes nothing', async () => {
    const h = a.buyer.headers
    const item = { inventory_id: a.inventoryId, quantity: 1 }
    const cases: Probe[] = [
      { method: 'POST', url: '/stf/v1/baskets', headers: h, payload: { items: [item], seller_id: b.seller.seller.id } },
      { method: 'POST', url: '/stf/v1/baskets', headers: h, payload: { items: [{ ...item, unit_price: 1 }] } },
      { method: 'POST', url: '/stf/v1/baskets', headers: h, payload: { items: [{ ...item, price: 0 }] } },
      { method: 'POST', url: '/stf/v1/baskets', headers: h, payload: { items: [item], status: 'checked_out', customer_id: b.buyer.customer.id } },
      { method: 'PATCH', url: `/stf/v1/baskets/${a.basketId}/items`, headers: h, payload: { items: [{ ...item, unit_price: 0 }] } },
      { method: 'POST', url: `/stf/v1/baskets/${a.basketId}/coupon`, headers: h, payload: { code: a.couponCode, value: 100 } },
      { method: 'POST', url: `/stf/v1/baskets/${a.basketId}/installments`, headers: h, payload: { payment_method: 'credit_card', monthly_rate: 0 } },
      { method: 'POST', url: `/stf/v1/baskets/${a.basketId}/checkout`, headers: h, payload: { payment_method: 'pix', total: 1 } },
      {
        method: 'POST',
        url: `/stf/v1/baskets/${a.basketId}/checkout`,
        headers: h,
        payload: { payment_method: 'pix', status: 'cancelled', seller_id: b.seller.seller.id },
      },
      {
        method: 'POST',
        url: '/stf/v1/auth/register',
        headers: a.seller.auth,
        payload: { email: `m-${randomUUID()}@example.com`, password: 'a long passphrase', first_name: 'M', last_name: 'A', email_verified: true },
      },
      {
        method: 'POST',
        url: '/stf/v1/auth/register',
        headers: a.seller.auth,
        payload: { email: `m-${randomUUID()}@example.com`, password: 'a long passphrase', first_name: 'M', last_name: 'A', seller_id: b.seller.seller.id },
      },
      {
        method: 'POST',
        url: '/stf/v1/tickets/downloads',
        headers: a.seller.auth,
        payload: { order_id: a.orderId, identifiers: [a.ticket], seller_id: b.seller.seller.id },
      },
    ]
    const basketBefore = (await call({ method: 'GET', url: `/stf/v1/baskets/${a.basketId}`, headers: h })).json()
    const ordersBefore = (await call({ method: 'GET', url: '/stf/v1/orders', headers: h })).json().meta.total
    for (const probe of cases) {
      const res = await call(probe)
      expect(res.statusCode, `${probe.url} ${JSON.stringify(probe.payload)}`).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
    expect((await call({ method: 'GET', url: `/stf/v1/baskets/${a.basketId}`, headers: h })).json()).toEqual(basketBefore)
    expect((await call({ method: 'GET', url: '/stf/v1/orders', headers: h })).json().meta.total).toBe(ordersBefore)
  })
})

describe("seller A's affiliate codes and customers within A", () => {
  it('an affiliate sees only its events, and baskets and orders only under the code they were made with', async () => {
    const seller = await createTestSeller(ctx.app)
    const [shown, hidden] = [await createTestEvent(ctx.app, seller.seller.id), await createTestEvent(ctx.app, seller.seller.id)]
    const [inShown, inHidden] = [await createTestInventory(ctx.app, shown), await createTestInventory(ctx.app, hidden)]
    const narrow = await createTestAffiliate(ctx.app, seller.seller.id, { code: 'NARROW', eventIds: [shown.id] })
    await createTestAffiliate(ctx.app, seller.seller.id, { code: 'OTHER' })
    const buyer = await createTestCustomer(ctx.app, seller)
    const as = (code?: string) => ({ ...buyer.headers, ...(code ? { 'x-affiliate-code': code } : {}) })
    const missing = nobody()

    await expectSameAsMissing(
      { method: 'GET', url: `/stf/v1/events/${hidden.id}`, headers: as('NARROW') },
      { method: 'GET', url: `/stf/v1/events/${missing}`, headers: as('NARROW') },
      [hidden.id, missing],
    )
    const items = (id: string) => ({ items: [{ inventory_id: id, quantity: 1 }] })
    await expectSameAsMissing(
      { method: 'POST', url: '/stf/v1/baskets', headers: as('NARROW'), payload: items(inHidden.id) },
      { method: 'POST', url: '/stf/v1/baskets', headers: as('NARROW'), payload: items(missing) },
      [inHidden.id, missing],
    )
    expect(narrow.allEvents).toBe(false)

    const direct = (await call({ method: 'POST', url: '/stf/v1/baskets', headers: as(), payload: items(inShown.id) })).json().id
    const viaNarrow = (await call({ method: 'POST', url: '/stf/v1/baskets', headers: as('NARROW'), payload: items(inShown.id) })).json().id
    for (const [basket, wrongCode] of [
      [direct, 'NARROW'],
      [viaNarrow, undefined],
      [viaNarrow, 'OTHER'],
    ] as const) {
      await expectSameAsMissing(
        { method: 'GET', url: `/stf/v1/baskets/${basket}`, headers: as(wrongCode) },
        { method: 'GET', url: `/stf/v1/baskets/${missing}`, headers: as(wrongCode) },
        [basket, missing],
      )
    }
    const order = await call({ method: 'POST', url: `/stf/v1/baskets/${viaNarrow}/checkout`, headers: as('NARROW'), payload: { payment_method: 'pix' } })
    expect(order.statusCode, order.body).toBe(201)
    await expectSameAsMissing(
      { method: 'GET', url: `/stf/v1/orders/${order.json().id}`, headers: as('OTHER') },
      { method: 'GET', url: `/stf/v1/orders/${missing}`, headers: as('OTHER') },
      [order.json().id, missing],
    )
    expect((await call({ method: 'GET', url: `/stf/v1/orders/${order.json().id}`, headers: as('NARROW') })).statusCode).toBe(200)
  })

  it("one customer's token reaches neither another customer's orders nor a basket linked to another customer", async () => {
    const missing = nobody()
    await expectSameAsMissing(
      { method: 'GET', url: `/stf/v1/orders/${a.orderId}`, headers: a.other.headers },
      { method: 'GET', url: `/stf/v1/orders/${missing}`, headers: a.other.headers },
      [a.orderId, missing],
    )
    await expectSameAsMissing(
      { method: 'POST', url: `/stf/v1/baskets/${a.basketId}/checkout`, headers: a.other.headers, payload: { payment_method: 'pix' } },
      { method: 'POST', url: `/stf/v1/baskets/${missing}/checkout`, headers: a.other.headers, payload: { payment_method: 'pix' } },
      [a.basketId, missing],
    )
    const theirs = (await call({ method: 'GET', url: '/stf/v1/orders', headers: a.other.headers })).json()
    expect(theirs.meta.total).toBe(0)
  })
})

describe('back office: ids of one seller never act on another', () => {
  it("nested routes and id lists naming B's objects under A answer as for objects that do not exist", async () => {
    const adm = (method: Probe['method'], url: string, payload?: unknown): Probe => ({ method, url: `/adm/v1${url}`, headers: admin.auth, payload })
    const A = a.seller.seller.id
    const missing = nobody()
    await expectSameAsMissing(adm('DELETE', `/sellers/${A}/api-keys/${b.seller.apiKeyId}`), adm('DELETE', `/sellers/${A}/api-keys/${missing}`), [
      b.seller.apiKeyId,
      missing,
    ])
    const code = () => `C${randomUUID().slice(0, 8).toUpperCase()}`
    for (const [field, id] of [
      ['event_ids', b.eventId],
      ['inventory_ids', b.inventoryId],
    ] as const) {
      const fixed = code()
      const res = await expectSameAsMissing(
        adm('POST', `/sellers/${A}/coupons`, { code: fixed, type: 'percent', value: 5, [field]: [id] }),
        adm('POST', `/sellers/${A}/coupons`, { code: fixed, type: 'percent', value: 5, [field]: [missing] }),
        [id, missing],
      )
      expect(res.statusCode).toBe(400)
      await expectSameAsMissing(adm('PUT', `/coupons/${a.couponId}`, { [field]: [id] }), adm('PUT', `/coupons/${a.couponId}`, { [field]: [missing] }), [
        id,
        missing,
      ])
    }
    await expectSameAsMissing(
      adm('POST', `/sellers/${A}/affiliates`, { code: 'SCOPED', name: 'Scoped', event_ids: [b.eventId] }),
      adm('POST', `/sellers/${A}/affiliates`, { code: 'SCOPED', name: 'Scoped', event_ids: [missing] }),
      [b.eventId, missing],
    )
    await expectSameAsMissing(
      adm('PUT', `/affiliates/${a.affiliateId}`, { event_ids: [b.eventId] }),
      adm('PUT', `/affiliates/${a.affiliateId}`, { event_ids: [missing] }),
      [b.eventId, missing],
    )
    const filtered = await expectSameAsMissing(
      adm('GET', `/sellers/${A}/orders?affiliate_code=${b.affiliateCode}`),
      adm('GET', `/sellers/${A}/orders?affiliate_code=AFFZ`),
      [b.affiliateCode, 'AFFZ'],
    )
    expect(filtered.json().meta.total).toBe(0)
  })

  it('refuses mass-assigned fields (seller, sold, uses, ids, permissions) with 400', async () => {
    const adm = (method: Probe['method'], url: string, payload: unknown) => call({ method, url: `/adm/v1${url}`, headers: admin.auth, payload })
    const A = a.seller.seller.id
    const cases: [Probe['method'], string, object][] = [
      ['POST', `/sellers/${A}/events`, { title: 'X', seller_id: b.seller.seller.id }],
      ['PUT', `/events/${a.eventId}`, { title: 'X', seller_id: b.seller.seller.id }],
      ['POST', `/events/${a.eventId}/inventories`, { date: '2030-01-01', name: 'X', price: 1, capacity: 1, sold: 1 }],
      ['PUT', `/inventories/${a.inventoryId}`, { sold: 0 }],
      ['PUT', `/inventories/${a.inventoryId}`, { event_id: b.eventId }],
      ['PUT', `/coupons/${a.couponId}`, { uses: 0 }],
      ['PUT', `/coupons/${a.couponId}`, { seller_id: b.seller.seller.id }],
      ['POST', `/sellers/${A}/affiliates`, { code: 'MASS', name: 'X', seller_id: b.seller.seller.id }],
      ['PUT', `/sellers/${A}`, { id: b.seller.seller.id }],
      ['POST', '/sellers', { name: 'X', storefront_url: 'https://x.example.com', id: b.seller.seller.id }],
    ]
    for (const [method, url, payload] of cases) {
      const res = await adm(method, url, payload)
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)}`).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
    const iam = (method: Probe['method'], url: string, headers: Record<string, string>, payload: unknown) =>
      call({ method, url: `/iam/v1${url}`, headers, payload })
    const email = () => `staff-${randomUUID()}@example.test`
    expect(
      (await iam('POST', '/users', admin.auth, { name: 'X', email: email(), password: 'a long passphrase', permissions: ['adm.orders.write'] })).statusCode,
    ).toBe(400)
    expect((await iam('PUT', `/users/${admin.user.id}`, admin.auth, { id: randomUUID() })).statusCode).toBe(400)
    // Roles are a field of a user, but only within what the caller holds itself.
    const clerk = await createStaff(ctx.app, { permissions: ['iam.users.read', 'iam.users.write'] })
    const elevate = await iam('POST', '/users', clerk.auth, { name: 'X', email: email(), password: 'a long passphrase', roles: ['admin'] })
    expect(elevate.statusCode).toBe(403)
    expect((await iam('PUT', `/users/${clerk.user.id}`, clerk.auth, { roles: ['admin'] })).statusCode).toBe(403)
    expect((await iam('GET', `/users/${clerk.user.id}/roles`, clerk.auth, undefined)).json()).toEqual([])
  })

  it("a seller's key, a customer token or a staff token of no one is no staff token", async () => {
    for (const authorization of [a.seller.auth.authorization, `Bearer ${a.seller.apiKey}`, `Bearer ${a.buyer.accessToken}`]) {
      const res = await call({ method: 'GET', url: `/adm/v1/sellers/${b.seller.seller.id}`, headers: { authorization } })
      expect(res.statusCode).toBe(401)
      expect(res.json().code).toBe('unauthorized')
    }
    // ... and a staff token is no seller credential either.
    const res = await call({ method: 'GET', url: '/stf/v1/seller', headers: admin.auth })
    expect(res.statusCode).toBe(401)
  })
})

describe("B's objects after everything A tried", () => {
  it('read exactly as before (except what B itself did with its own tokens)', async () => {
    const after = await viewOfB()
    // B used its own magic link, verification and reset tokens above: the customer's
    // `email_verified` may have changed by B's hand. Everything else is as it was.
    const strip = (view: typeof before) => ({ ...view, me: undefined, other: undefined })
    expect(strip(after)).toEqual(strip(before))
    expect(after.me[0]).toBe(200)
    expect((after.me[1] as { id: string }).id).toBe(b.buyer.customer.id)
  })
})
