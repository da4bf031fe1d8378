import { and, eq, sql } from 'drizzle-orm'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { events as catalogEvents } from '../../src/domain/catalog/events.table.js'
import { signatureHeader } from '../../src/domain/webhooks/signature.js'
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '../../src/domain/webhooks/webhooks.table.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { buildTestApp, useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { type TestSeller, useTwoSellers } from '../factories/sellers.js'
import { type AdmClient, admClient } from '../support/adm-client.js'
import { eventually } from '../support/smtp-sink.js'
import { createStaff } from '../support/staff.js'
import { verifyWebhook } from '../support/verify-webhook.js'
import { drainWebhooks, WebhookReceiver } from '../support/webhook-receiver.js'

/** Receivers listen on 127.0.0.1 over http: this app allows both, as a developer's would. */
const LENIENT = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_ALLOW_INSECURE: 'true',
  WEBHOOK_RETRY_BASE_MS: '1',
  METRICS_TOKEN: 'metrics-token-of-the-webhooks-test',
}
const ctx = useTestApp({ env: LENIENT })
const [a, b] = useTwoSellers(ctx)
let writer: AdmClient
let reader: AdmClient
let receiver: WebhookReceiver
let inventoryId: string

type Order = { id: string; tickets: { identifier: string }[] }
type Webhook = { id: string; secret: string; url: string }

beforeAll(async () => {
  writer = admClient(
    ctx.app,
    (await createStaff(ctx.app, { permissions: ['adm.sellers.read', 'adm.sellers.write', 'adm.orders.read', 'adm.orders.write'] })).auth,
  )
  reader = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.sellers.read'] })).auth)
  receiver = await WebhookReceiver.start()
  inventoryId = (await createTestInventory(ctx.app, await createTestEvent(ctx.app, a.seller.id), { capacity: 500, price: 5000 })).id
})
afterAll(async () => {
  await receiver?.stop()
})

async function createWebhook(seller: TestSeller, body: Record<string, unknown> = {}): Promise<Webhook> {
  const res = await writer.post(`/sellers/${seller.seller.id}/webhooks`, { url: receiver.url(`/${randomUUID()}`), ...body })
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

/** A signed-in customer's new basket of `quantity` tickets, through the storefront. */
async function openBasket(seller: TestSeller, inventory: string, quantity: number) {
  const customer = await insertSignedInCustomer(ctx.app, seller)
  const basket = await ctx.app.inject({
    method: 'POST',
    url: '/stf/v1/baskets',
    headers: customer.headers,
    payload: { items: [{ inventory_id: inventory, quantity }] },
  })
  expect(basket.statusCode, basket.body).toBe(201)
  const checkout = () =>
    ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basket.json().id}/checkout`, headers: customer.headers, payload: { payment_method: 'pix' } })
  return { checkout }
}

/** A basket and its checkout through the storefront, as a partner does it. */
async function buy(seller: TestSeller = a, inventory = inventoryId): Promise<Order> {
  const order = await (await openBasket(seller, inventory, 2)).checkout()
  expect(order.statusCode, order.body).toBe(201)
  return order.json()
}

/** Runs the webhook worker until nothing is left to send now (`drainWebhooks`). */
const drain = (app: FastifyInstance = ctx.app) => drainWebhooks(app)

/** Makes the pending deliveries due now instead of waiting out their backoff. */
const dueNow = () =>
  ctx.app.db.update(webhookDeliveries).set({ nextAttemptAt: sql`now() - interval '1 second'` }).where(eq(webhookDeliveries.status, 'pending'))

describe('webhook endpoints in the back office', () => {
  it('creates an endpoint whose secret is shown once, then lists, reads, changes and deletes it', async () => {
    const created = await writer.post(`/sellers/${a.seller.id}/webhooks`, { url: receiver.url('/crud'), events: ['order.confirmed'], description: 'ERP' })
    expect(created.statusCode).toBe(201)
    const webhook = created.json()
    expect(webhook).toEqual({
      id: expect.any(String),
      seller_id: a.seller.id,
      url: receiver.url('/crud'),
      events: ['order.confirmed'],
      description: 'ERP',
      active: true,
      disabled_reason: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    })
    const read = await reader.get(`/webhooks/${webhook.id}`)
    expect(read.statusCode).toBe(200)
    expect(read.json()).not.toHaveProperty('secret')
    expect(JSON.stringify((await reader.get(`/sellers/${a.seller.id}/webhooks?limit=100`)).json())).not.toContain(webhook.secret)
    // The database alone never reveals it.
    const [row] = await ctx.app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, webhook.id))
    expect(JSON.stringify(row)).not.toContain(webhook.secret.slice(6))

    const changed = await writer.put(`/webhooks/${webhook.id}`, { events: null, description: null, active: false })
    expect(changed.statusCode).toBe(200)
    expect(changed.json()).toMatchObject({ events: null, description: null, active: false })
    expect((await writer.put(`/webhooks/${webhook.id}`, {})).statusCode).toBe(400)
    expect((await writer.put(`/webhooks/${webhook.id}`, { events: ['order.shipped'] })).statusCode).toBe(400)
    expect((await writer.delete(`/webhooks/${webhook.id}`)).statusCode).toBe(204)
    expect((await reader.get(`/webhooks/${webhook.id}`)).statusCode).toBe(404)
    expect((await writer.delete(`/webhooks/${webhook.id}`)).statusCode).toBe(404)
    const audits = await ctx.app.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.targetId, webhook.id))
    expect(audits.map((x) => x.action).sort()).toEqual(['adm.webhook.created', 'adm.webhook.deleted', 'adm.webhook.updated'])
    expect(JSON.stringify(await ctx.app.db.select().from(auditLog).where(eq(auditLog.targetId, webhook.id)))).not.toContain(webhook.secret)
  })

  it("lists a seller's endpoints only, paginated, and answers 404 for an unknown seller", async () => {
    const c = await useSeller()
    const first = await createWebhook(c)
    const second = await createWebhook(c)
    await createWebhook(b)
    const page = await reader.get(`/sellers/${c.seller.id}/webhooks?limit=1&page=2`)
    expect(page.json().data.map((w: Webhook) => w.id)).toEqual([second.id])
    expect(page.json().meta).toEqual({ count: 1, limit: 1, page: 2, total: 2 })
    expect((await reader.get(`/sellers/${c.seller.id}/webhooks`)).json().data.map((w: Webhook) => w.id)).toEqual([first.id, second.id])
    expect((await reader.get(`/sellers/${randomUUID()}/webhooks`)).statusCode).toBe(404)
    expect((await writer.post(`/sellers/${randomUUID()}/webhooks`, { url: receiver.url() })).statusCode).toBe(404)
  })

  it('needs adm.sellers.read to read and adm.sellers.write to change, and a staff token at all', async () => {
    const webhook = await createWebhook(a)
    const [delivery] = await ctx.app.db.select().from(webhookDeliveries).limit(1)
    const id = webhook.id
    for (const res of [
      await reader.post(`/sellers/${a.seller.id}/webhooks`, { url: receiver.url() }),
      await reader.put(`/webhooks/${id}`, { active: false }),
      await reader.delete(`/webhooks/${id}`),
      await reader.post(`/webhooks/${id}/rotate-secret`),
      await reader.post(`/webhooks/${id}/ping`),
      await reader.post(`/webhooks/${id}/deliveries/${delivery?.id ?? randomUUID()}/redeliver`),
    ]) {
      expect(res.statusCode, res.body).toBe(403)
    }
    const anonymous = admClient(ctx.app, {})
    expect((await anonymous.get(`/webhooks/${id}`)).statusCode).toBe(401)
    expect((await anonymous.get(`/sellers/${a.seller.id}/webhooks`)).statusCode).toBe(401)
    expect((await reader.get(`/webhooks/${id}/deliveries`)).statusCode).toBe(200)
  })
})

let sellerCount = 0
async function useSeller(): Promise<TestSeller> {
  const { createTestSeller } = await import('../factories/sellers.js')
  sellerCount++
  return createTestSeller(ctx.app, { name: `Webhook seller ${sellerCount}` })
}

describe('events, signed and delivered', () => {
  it("POSTs order.confirmed with the Order as the API answers it, signed so that the webhooks guide's check passes", async () => {
    const seller = await useSeller()
    const inventory = (await createTestInventory(ctx.app, await createTestEvent(ctx.app, seller.seller.id))).id
    const webhook = await createWebhook(seller)
    const other = await createWebhook(b)
    const order = await buy(seller, inventory)
    await drain()
    const got = receiver.received.filter((r) => r.json.type === 'order.confirmed' && r.json.data.id === order.id)
    expect(got).toHaveLength(1)
    const [request] = got
    expect(request!.headers['content-type']).toBe('application/json')
    expect(request!.headers['user-agent']).toBe(`Boxoffice-Webhooks/${ctx.app.info.version}`)
    expect(request!.headers['boxoffice-event-id']).toBe(request!.json.id)
    expect(verifyWebhook(request!.body, String(request!.headers['boxoffice-signature']), webhook.secret)).toBe(true)
    expect(verifyWebhook(request!.body, String(request!.headers['boxoffice-signature']), other.secret)).toBe(false)
    const adm = (await writer.get(`/orders/${order.id}`)).json()
    expect(request!.json).toEqual({
      id: expect.any(String),
      type: 'order.confirmed',
      created_at: expect.any(String),
      seller_id: seller.seller.id,
      affiliate_code: null,
      data: adm,
    })
    expect(request!.json.data).toMatchObject(order)
    // Seller b's endpoint hears nothing of seller a's sales.
    expect(
      receiver.received.filter(
        (r) =>
          r.json.data?.id === order.id && r.headers['boxoffice-signature'] && verifyWebhook(r.body, String(r.headers['boxoffice-signature']), other.secret),
      ),
    ).toHaveLength(0)
    const deliveries = (await reader.get(`/webhooks/${webhook.id}/deliveries`)).json()
    expect(deliveries.data).toEqual([
      {
        id: expect.any(String),
        event_id: request!.json.id,
        type: 'order.confirmed',
        attempt: 1,
        status: 'delivered',
        response_status: 200,
        duration_ms: expect.any(Number),
        error: null,
        next_attempt_at: null,
        created_at: expect.any(String),
      },
    ])
  })

  it('runs the very verifier docs/webhooks.md shows, in at most 10 lines', () => {
    const verifier = readFileSync(new URL('../support/verify-webhook.ts', import.meta.url), 'utf8')
      .split('\n')
      .slice(1)
      .join('\n')
      .trim()
    const guide = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8')
    expect(guide).toContain(`\`\`\`ts\n${verifier}\n\`\`\``)
    expect(verifier.split('\n').length).toBeLessThanOrEqual(10)
  })

  it('fails verification for a tampered body, a stale timestamp or another secret', async () => {
    const seller = await useSeller()
    const webhook = await createWebhook(seller)
    const pinged = await writer.post(`/webhooks/${webhook.id}/ping`)
    expect(pinged.statusCode).toBe(202)
    await drain()
    const [request] = receiver.received.filter((r) => r.json.id === pinged.json().event_id)
    expect(request!.json).toMatchObject({ type: 'webhook.ping', seller_id: seller.seller.id, data: { webhook_id: webhook.id } })
    const header = String(request!.headers['boxoffice-signature'])
    expect(verifyWebhook(request!.body, header, webhook.secret)).toBe(true)
    expect(verifyWebhook(request!.body.replace('webhook.ping', 'webhook.pong'), header, webhook.secret)).toBe(false)
    expect(verifyWebhook(`${request!.body} `, header, webhook.secret)).toBe(false)
    const now = Math.floor(Date.now() / 1000)
    expect(verifyWebhook(request!.body, signatureHeader([webhook.secret], now - 301, request!.body), webhook.secret)).toBe(false)
    expect(verifyWebhook(request!.body, signatureHeader([webhook.secret], now + 301, request!.body), webhook.secret)).toBe(false)
    expect(verifyWebhook(request!.body, signatureHeader([webhook.secret], now - 60, request!.body), webhook.secret)).toBe(true)
    expect(verifyWebhook(request!.body, header.replace(/v1=[0-9a-f]+/, `v1=${'0'.repeat(64)}`), webhook.secret)).toBe(false)
  })

  it('signs with the new and the old secret for 24 hours after a rotation, then with the new one only', async () => {
    const seller = await useSeller()
    const webhook = await createWebhook(seller)
    const rotated = await writer.post(`/webhooks/${webhook.id}/rotate-secret`)
    expect(rotated.statusCode).toBe(200)
    const fresh = rotated.json().secret as string
    expect(fresh).toMatch(/^whsec_/)
    expect(fresh).not.toBe(webhook.secret)
    const ping = async () => {
      const eventId = (await writer.post(`/webhooks/${webhook.id}/ping`)).json().event_id
      await drain()
      return receiver.received.find((r) => r.json.id === eventId)!
    }
    const during = await ping()
    const header = String(during.headers['boxoffice-signature'])
    expect(header.match(/v1=/g)).toHaveLength(2)
    expect(verifyWebhook(during.body, header, fresh)).toBe(true)
    expect(verifyWebhook(during.body, header, webhook.secret)).toBe(true)
    const [row] = await ctx.app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, webhook.id))
    expect(row!.previousSecretExpiresAt!.getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000)
    await ctx.app.db.update(webhookEndpoints).set({ previousSecretExpiresAt: sql`now() - interval '1 second'` }).where(eq(webhookEndpoints.id, webhook.id))
    const after = await ping()
    expect(String(after.headers['boxoffice-signature']).match(/v1=/g)).toHaveLength(1)
    expect(verifyWebhook(after.body, String(after.headers['boxoffice-signature']), fresh)).toBe(true)
    expect(verifyWebhook(after.body, String(after.headers['boxoffice-signature']), webhook.secret)).toBe(false)
  })

  it('sends only the types an endpoint subscribes to: cancellations, voids and first accesses, each with its data', async () => {
    const seller = await useSeller()
    const inventory = (await createTestInventory(ctx.app, await createTestEvent(ctx.app, seller.seller.id))).id
    const all = await createWebhook(seller)
    const cancels = await createWebhook(seller, { events: ['order.cancelled'] })
    const order = await buy(seller, inventory)
    const [first, second] = order.tickets.map((t) => t.identifier)
    const download = await ctx.app.inject({
      method: 'POST',
      url: '/stf/v1/tickets/downloads',
      headers: seller.auth,
      payload: { order_id: order.id, identifiers: [first] },
    })
    expect(download.json().first_access).toEqual([first])
    // A second download of the same ticket is no first access.
    await ctx.app.inject({ method: 'POST', url: '/stf/v1/tickets/downloads', headers: seller.auth, payload: { order_id: order.id, identifiers: [first] } })
    expect((await writer.post(`/orders/${order.id}/tickets/${second}/void`)).statusCode).toBe(200)
    expect((await writer.post(`/orders/${order.id}/cancel`)).statusCode).toBe(200)
    await drain()
    const ofOrder = receiver.received.filter((r) => r.json.data?.id === order.id || r.json.data?.order_id === order.id)
    const by = (webhook: Webhook) => ofOrder.filter((r) => verifyWebhook(r.body, String(r.headers['boxoffice-signature']), webhook.secret))
    // A paid order's cancellation leaves a refund of what was paid (docs/payments.md), announced after it.
    expect(by(all).map((r) => r.json.type)).toEqual(['order.confirmed', 'ticket.first_access', 'ticket.voided', 'order.cancelled', 'refund.created'])
    expect(by(cancels).map((r) => r.json.type)).toEqual(['order.cancelled'])
    const [, access, voided, cancelled] = by(all).map((r) => r.json.data)
    const final = (await writer.get(`/orders/${order.id}`)).json()
    const ticket = (identifier: string) => final.tickets.find((t: { identifier: string }) => t.identifier === identifier)
    // The tickets as the order lists them (the first one was still valid then; the cancellation voided it).
    expect(access).toEqual({ ...ticket(first!), status: 'valid', order_id: order.id })
    expect(access?.first_access_at).toEqual(expect.any(String))
    expect(voided).toEqual({ ...ticket(second!), order_id: order.id })
    expect(cancelled).toEqual(final)
  })

  it('retries a receiver answering 500 until it answers 200: once per delivery, confirmed before cancelled', async () => {
    const seller = await useSeller()
    const inventory = (await createTestInventory(ctx.app, await createTestEvent(ctx.app, seller.seller.id))).id
    const path = `/${randomUUID()}`
    const webhook = (await writer.post(`/sellers/${seller.seller.id}/webhooks`, { url: receiver.url(path) })).json()
    const failing = new Set<string>()
    receiver.answer = (request) => {
      if (!request.json.id || !webhook.url.endsWith(path)) return { status: 200 }
      const seen = receiver.received.filter((r) => r.json.id === request.json.id).length
      if (seen <= 2) {
        failing.add(request.json.id)
        return { status: 500, body: 'busy' }
      }
      return { status: 200 }
    }
    try {
      const order = await buy(seller, inventory)
      expect((await writer.post(`/orders/${order.id}/cancel`)).statusCode).toBe(200)
      for (let round = 0; round < 20; round++) {
        await drain()
        const [left] = await ctx.app.db
          .select({ n: sql<number>`count(*)::int` })
          .from(webhookDeliveries)
          .where(and(eq(webhookDeliveries.endpointId, webhook.id), eq(webhookDeliveries.status, 'pending')))
        if (Number(left!.n) === 0) break
        await dueNow()
      }
      const got = receiver.received.filter((r) => r.json.data?.id === order.id)
      expect(got.map((r) => r.json.type)).toEqual([
        'order.confirmed',
        'order.confirmed',
        'order.confirmed',
        'order.cancelled',
        'order.cancelled',
        'order.cancelled',
      ])
      // One event id per event, the same on every attempt.
      expect(new Set(got.slice(0, 3).map((r) => r.headers['boxoffice-event-id'])).size).toBe(1)
      const deliveries = (await reader.get(`/webhooks/${webhook.id}/deliveries`)).json().data
      expect(
        deliveries.map((d: { type: string; attempt: number; status: string; response_status: number }) => [d.type, d.attempt, d.status, d.response_status]),
      ).toEqual([
        ['refund.created', 3, 'delivered', 200],
        ['order.cancelled', 3, 'delivered', 200],
        ['order.confirmed', 3, 'delivered', 200],
      ])
    } finally {
      receiver.answer = () => ({ status: 200 })
    }
  })

  it('records the failed attempt with its status, error and next attempt', async () => {
    const seller = await useSeller()
    const path = `/${randomUUID()}`
    const webhook = (await writer.post(`/sellers/${seller.seller.id}/webhooks`, { url: receiver.url(path) })).json()
    await ctx.app.db
      .update(webhookEndpoints)
      .set({ url: receiver.url(path) })
      .where(eq(webhookEndpoints.id, webhook.id))
    receiver.answer = (request) => (request.json.data?.webhook_id === webhook.id ? { status: 503 } : { status: 200 })
    try {
      await writer.post(`/webhooks/${webhook.id}/ping`)
      await ctx.app.outbox.runOnce('webhook')
      const [delivery] = (await reader.get(`/webhooks/${webhook.id}/deliveries`)).json().data
      expect(delivery).toMatchObject({ type: 'webhook.ping', attempt: 1, status: 'pending', response_status: 503, error: 'HTTP 503' })
      expect(Date.parse(delivery.next_attempt_at)).toBeGreaterThan(Date.now() - 5000)
    } finally {
      receiver.answer = () => ({ status: 200 })
    }
  })

  it('sends nothing for a checkout that rolled back', async () => {
    const seller = await useSeller()
    const event = await createTestEvent(ctx.app, seller.seller.id)
    const inventory = (await createTestInventory(ctx.app, event)).id
    const webhook = await createWebhook(seller)
    const basket = await openBasket(seller, inventory, 1)
    // The sale, the checkout's last statement, refuses: the order and its event roll back with it.
    await ctx.app.db.update(catalogEvents).set({ status: 'cancelled' }).where(eq(catalogEvents.id, event.id))
    const refused = await basket.checkout()
    expect(refused.statusCode).toBe(409)
    expect(await ctx.app.db.select().from(webhookEvents).where(eq(webhookEvents.sellerId, seller.seller.id))).toHaveLength(0)
    await drain()
    expect((await reader.get(`/webhooks/${webhook.id}/deliveries`)).json().meta.total).toBe(0)
  })

  it('writes no event for a seller without endpoints', async () => {
    const seller = await useSeller()
    const inventory = (await createTestInventory(ctx.app, await createTestEvent(ctx.app, seller.seller.id))).id
    const webhook = await createWebhook(seller, { active: false })
    const order = await buy(seller, inventory)
    await writer.post(`/orders/${order.id}/cancel`)
    expect(await ctx.app.db.select().from(webhookEvents).where(eq(webhookEvents.sellerId, seller.seller.id))).toHaveLength(0)
    expect((await reader.get(`/webhooks/${webhook.id}/deliveries`)).json().meta.total).toBe(0)
  })

  it('never follows a redirect: a 3xx is a failed attempt', async () => {
    const seller = await useSeller()
    const path = `/${randomUUID()}`
    const webhook = (await writer.post(`/sellers/${seller.seller.id}/webhooks`, { url: receiver.url(path) })).json()
    receiver.answer = (request) =>
      request.json.data?.webhook_id === webhook.id ? { status: 302, headers: { location: receiver.url('/redirected') } } : { status: 200 }
    try {
      const eventId = (await writer.post(`/webhooks/${webhook.id}/ping`)).json().event_id
      await ctx.app.outbox.runOnce('webhook')
      expect(receiver.received.filter((r) => r.json.id === eventId)).toHaveLength(1)
      const [delivery] = (await reader.get(`/webhooks/${webhook.id}/deliveries`)).json().data
      expect(delivery).toMatchObject({ status: 'pending', response_status: 302, error: 'HTTP 302 (redirects are not followed)' })
    } finally {
      receiver.answer = () => ({ status: 200 })
    }
  })

  it("redelivers an event as a new delivery with the same event id; another endpoint's delivery is not found", async () => {
    const seller = await useSeller()
    const webhook = await createWebhook(seller)
    const otherWebhook = await createWebhook(b)
    const eventId = (await writer.post(`/webhooks/${webhook.id}/ping`)).json().event_id
    await writer.post(`/webhooks/${otherWebhook.id}/ping`)
    await drain()
    const [delivery] = (await reader.get(`/webhooks/${webhook.id}/deliveries`)).json().data
    const [foreign] = (await reader.get(`/webhooks/${otherWebhook.id}/deliveries`)).json().data
    expect((await writer.post(`/webhooks/${webhook.id}/deliveries/${foreign.id}/redeliver`)).statusCode).toBe(404)
    expect((await writer.post(`/webhooks/${randomUUID()}/deliveries/${delivery.id}/redeliver`)).statusCode).toBe(404)
    const again = await writer.post(`/webhooks/${webhook.id}/deliveries/${delivery.id}/redeliver`)
    expect(again.statusCode).toBe(202)
    expect(again.json()).toMatchObject({ event_id: eventId, status: 'pending', attempt: 0 })
    await drain()
    expect(receiver.received.filter((r) => r.json.id === eventId)).toHaveLength(2)
    const list = (await reader.get(`/webhooks/${webhook.id}/deliveries?limit=1`)).json()
    expect(list.meta).toEqual({ count: 1, limit: 1, page: 1, total: 2 })
    expect(list.data[0]).toMatchObject({ id: again.json().id, status: 'delivered' })
  })

  it("turns off an endpoint that failed for 3 days and emails the seller's contact", async () => {
    const seller = await useSeller()
    expect((await writer.put(`/sellers/${seller.seller.id}`, { contact_email: 'not an email' })).statusCode).toBe(400)
    const contact = await writer.put(`/sellers/${seller.seller.id}`, { contact_email: 'ops@seller.example' })
    expect(contact.json().contact_email).toBe('ops@seller.example')
    const path = `/${randomUUID()}`
    const webhook = (await writer.post(`/sellers/${seller.seller.id}/webhooks`, { url: receiver.url(path) })).json()
    receiver.answer = (request) => (request.json.data?.webhook_id === webhook.id ? { status: 500 } : { status: 200 })
    try {
      await writer.post(`/webhooks/${webhook.id}/ping`)
      await writer.post(`/webhooks/${webhook.id}/ping`)
      await ctx.app.db.update(webhookDeliveries).set({ createdAt: sql`now() - interval '73 hours'` }).where(eq(webhookDeliveries.endpointId, webhook.id))
      await ctx.app.db.update(webhookEndpoints).set({ failingSince: sql`now() - interval '73 hours'` }).where(eq(webhookEndpoints.id, webhook.id))
      await ctx.app.outbox.runOnce('webhook')
      const read = (await reader.get(`/webhooks/${webhook.id}`)).json()
      expect(read.active).toBe(false)
      expect(read.disabled_reason).toMatch(/failed for 3 days.*HTTP 500/)
      const deliveries = (await reader.get(`/webhooks/${webhook.id}/deliveries`)).json().data
      expect(deliveries.map((d: { status: string }) => d.status)).toEqual(['failed', 'failed'])
      const mails = await ctx.app.db.select().from(outboxEmails).where(eq(outboxEmails.to, 'ops@seller.example'))
      expect(mails).toHaveLength(1)
      expect(mails[0]!.text).toContain(webhook.url)
      // Turned on again, it receives again and forgets why it was off.
      const on = await writer.put(`/webhooks/${webhook.id}`, { active: true })
      expect(on.json()).toMatchObject({ active: true, disabled_reason: null })
    } finally {
      receiver.answer = () => ({ status: 200 })
    }
  })

  it('counts the backlog, attempts and their latency in /metrics', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${LENIENT.METRICS_TOKEN}` } })
    expect(res.body).toMatch(/webhook_deliveries\{status="pending"\} \d+/)
    expect(res.body).toMatch(/outbox_attempts_total\{kind="webhook",outcome="delivered"\} [1-9]/)
    expect(res.body).toMatch(/outbox_attempt_duration_seconds_count\{kind="webhook"\} [1-9]/)
  })
})

describe('server-side request forgery', () => {
  let strict: FastifyInstance
  let strictWriter: AdmClient
  beforeAll(async () => {
    strict = await buildTestApp({ env: { WEBHOOK_ALLOW_INSECURE: 'true' } })
    strictWriter = admClient(strict, (await createStaff(strict, { permissions: ['adm.sellers.write'] })).auth)
  })
  afterAll(async () => {
    await strict?.close()
  })

  it('refuses endpoints on loopback, private, link-local and metadata addresses, and names resolving to them', async () => {
    for (const url of [
      `http://127.0.0.1:${receiver.port}/x`,
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${receiver.port}/x`,
      'http://[::1]/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://[::ffff:a9fe:a9fe]/x',
      'http://10.1.2.3/x',
      'http://172.16.0.1/x',
      'http://192.168.1.1/x',
      'http://100.100.100.200/x',
      'http://0.0.0.0/x',
      'http://[fd00:ec2::254]/x',
      'http://[fe80::1]/x',
    ]) {
      const res = await strictWriter.post(`/sellers/${a.seller.id}/webhooks`, { url })
      expect(res.statusCode, url).toBe(400)
      expect(res.json().details, url).toEqual([{ path: 'url', message: 'must not resolve to a loopback, private, link-local or metadata address' }])
    }
  })

  it('refuses plain http unless allowed, and credentials in the URL', async () => {
    const httpsOnly = await buildTestApp()
    try {
      const w = admClient(httpsOnly, (await createStaff(httpsOnly, { permissions: ['adm.sellers.write'] })).auth)
      const res = await w.post(`/sellers/${a.seller.id}/webhooks`, { url: 'http://93.184.215.14/x' })
      expect(res.statusCode).toBe(400)
      expect(res.json().details).toEqual([{ path: 'url', message: 'must be an https URL' }])
      expect((await w.post(`/sellers/${a.seller.id}/webhooks`, { url: 'ftp://93.184.215.14/x' })).statusCode).toBe(400)
    } finally {
      await httpsOnly.close()
    }
    const creds = await strictWriter.post(`/sellers/${a.seller.id}/webhooks`, { url: 'http://user:pw@93.184.215.14/x' })
    expect(creds.json().details).toEqual([{ path: 'url', message: 'must not carry credentials' }])
  })

  it('refuses at delivery time too: an endpoint that resolves to a private address now is never called', async () => {
    const seller = await useSeller()
    const before = receiver.received.length
    const ids: string[] = []
    for (const host of ['127.0.0.1', 'localhost']) {
      // Saved when allowed (or when its name still resolved elsewhere): the worker checks again.
      const webhook = (await writer.post(`/sellers/${seller.seller.id}/webhooks`, { url: `http://${host}:${receiver.port}/rebound` })).json()
      ids.push(webhook.id)
      await writer.post(`/webhooks/${webhook.id}/ping`)
    }
    await strict.outbox.runOnce('webhook')
    expect(receiver.received.length).toBe(before)
    for (const id of ids) {
      const [delivery] = (await reader.get(`/webhooks/${id}/deliveries`)).json().data
      expect(delivery).toMatchObject({ status: 'pending', attempt: 1, response_status: null })
      expect(delivery.error).toMatch(/forbidden address/)
    }
    const metadata = (await writer.post(`/sellers/${seller.seller.id}/webhooks`, { url: receiver.url() })).json()
    await ctx.app.db.update(webhookEndpoints).set({ url: 'http://169.254.169.254/latest/meta-data/' }).where(eq(webhookEndpoints.id, metadata.id))
    await writer.post(`/webhooks/${metadata.id}/ping`)
    await strict.outbox.runOnce('webhook')
    const [delivery] = (await reader.get(`/webhooks/${metadata.id}/deliveries`)).json().data
    expect(delivery.error).toMatch(/forbidden address \(169\.254\.169\.254\)/)
  })
})

describe('several workers on one database', () => {
  it('deliver each event once', async () => {
    const seller = await useSeller()
    const webhook = await createWebhook(seller)
    const other = await buildTestApp({ env: LENIENT })
    try {
      const eventIds: string[] = []
      for (let n = 0; n < 40; n++) eventIds.push((await writer.post(`/webhooks/${webhook.id}/ping`)).json().event_id)
      for (let round = 0; round < 5; round++) {
        await Promise.all([ctx.app.outbox.runOnce('webhook'), other.outbox.runOnce('webhook'), ctx.app.outbox.runOnce('webhook')])
      }
      await eventually(() => eventIds.every((id) => receiver.received.some((r) => r.json.id === id)))
      for (const id of eventIds)
        expect(
          receiver.received.filter((r) => r.json.id === id),
          id,
        ).toHaveLength(1)
    } finally {
      await other.close()
    }
  })
})

describe('a receiver that does not answer', () => {
  it('fails the attempt after WEBHOOK_TIMEOUT_MS', async () => {
    const { createServer } = await import('node:http')
    const silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const port = (silent.address() as { port: number }).port
    const quick = await buildTestApp({ env: { ...LENIENT, WEBHOOK_TIMEOUT_MS: '200' } })
    try {
      const seller = await useSeller()
      const webhook = (await writer.post(`/sellers/${seller.seller.id}/webhooks`, { url: `http://127.0.0.1:${port}/slow` })).json()
      await writer.post(`/webhooks/${webhook.id}/ping`)
      await quick.outbox.runOnce('webhook')
      const [delivery] = (await reader.get(`/webhooks/${webhook.id}/deliveries`)).json().data
      expect(delivery).toMatchObject({ status: 'pending', response_status: null, error: 'no answer within 200 ms' })
    } finally {
      await quick.close()
      silent.closeAllConnections()
      await new Promise((resolve) => silent.close(resolve))
    }
  })
})

describe('ticket.checked_in and ticket.checkin_annulled', () => {
  it('sends an entry of a ticket that was not inside, forced or not; never a refusal, an exit or a forced re-entry; and an annulment', async () => {
    const { createTestSeller } = await import('../factories/sellers.js')
    const { buyTickets, checkinAdmin, pairedDevice, scanner } = await import('../support/checkin.js')
    const { dayFromToday } = await import('../factories/catalog.js')
    const seller = await createTestSeller(ctx.app, { settings: { timezone: 'UTC' } })
    const event = await createTestEvent(ctx.app, seller.seller.id)
    const inventory = (await createTestInventory(ctx.app, event, { date: dayFromToday(0) })).id
    const later = (await createTestInventory(ctx.app, event, { date: dayFromToday(3), name: 'Later' })).id
    const adm = await checkinAdmin(ctx.app)
    const listId = (await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Door' })).json().id
    const device = await pairedDevice(ctx.app, adm, seller.seller.id)
    const gate = scanner(ctx.app, device.headers)
    const webhook = await createWebhook(seller, { events: ['ticket.checked_in', 'ticket.checkin_annulled'] })
    const order = await buyTickets(ctx.app, seller, [{ inventory_id: inventory, quantity: 1 }])
    const early = await buyTickets(ctx.app, seller, [{ inventory_id: later, quantity: 1 }])
    const identifier = order.tickets[0]!.identifier
    const scan = (extra: object) => gate.post('/redeem', { code: identifier, list_ids: [listId], ...extra })
    const upload = (code: string, nonce: string) =>
      gate.post('/redeem/batch', { scans: [{ code, list_ids: [listId], force: true, nonce, scanned_at: new Date(Date.now() - 60_000).toISOString() }] })
    expect((await scan({ nonce: 'first' })).json().status).toBe('ok')
    expect((await scan({})).json().status).toBe('refused')
    // Already inside: recorded, forced, and no second event.
    expect((await upload(identifier, 'again')).json().results[0]).toMatchObject({ status: 'ok', reason: 'already_redeemed', checkin: { forced: true } })
    // Not inside: a forced entry is an entry.
    expect((await upload(early.tickets[0]!.identifier, 'early')).json().results[0]).toMatchObject({ status: 'ok', reason: 'invalid_time' })
    expect((await scan({ type: 'exit' })).json().status).toBe('ok')
    const annulled = await gate.post('/annul', { list_id: listId, nonce: 'first' })
    expect(annulled.statusCode).toBe(200)
    await drain()
    const mine = receiver.received.filter((r) => verifyWebhook(r.body, String(r.headers['boxoffice-signature']), webhook.secret)).map((r) => r.json)
    expect(mine.map((e) => e.type).sort()).toEqual(['ticket.checked_in', 'ticket.checked_in', 'ticket.checkin_annulled'])
    const checkedIn = mine.filter((e) => e.type === 'ticket.checked_in')
    expect(checkedIn.find((e) => e.data.identifier === identifier)!.data).toEqual({
      identifier,
      order_id: order.id,
      list_id: listId,
      device_id: device.id,
      type: 'entry',
      forced: false,
      scanned_at: expect.any(String),
    })
    expect(checkedIn.find((e) => e.data.identifier !== identifier)!.data).toMatchObject({ identifier: early.tickets[0]!.identifier, forced: true })
    expect(mine.find((e) => e.type === 'ticket.checkin_annulled')!.data).toEqual({
      identifier,
      order_id: order.id,
      list_id: listId,
      device_id: device.id,
      checkin_id: annulled.json().id,
    })
  })
})

describe('an attempt that answers late', () => {
  it('does not mark delivered a delivery that was settled meanwhile (its lease ran out and it was given up)', async () => {
    const { webhookChannel } = await import('../../src/domain/webhooks/webhook-channel.js')
    const { createHttpSender } = await import('../../src/platform/outbox/http-sender.js')
    const { pino } = await import('pino')
    await drain()
    const seller = await useSeller()
    const webhook = await createWebhook(seller)
    expect((await writer.post(`/webhooks/${webhook.id}/ping`)).statusCode).toBe(202)
    const channel = webhookChannel({
      db: ctx.app.db,
      sender: createHttpSender({ timeoutMs: 1000, allowPrivate: true, userAgent: 'test' }),
      logger: pino({ level: 'silent' }),
      secretKey: ctx.app.secrets.webhookSecrets,
      retryBaseMs: 1,
    })
    const leased = (await channel.claim(100)).find((d) => d.endpointId === webhook.id)!
    expect(leased).toBeDefined()
    // Another worker, the lease over, tried it and gave up while this attempt was still on its way.
    await ctx.app.db.update(webhookDeliveries).set({ status: 'failed', lastError: 'gave up' }).where(eq(webhookDeliveries.id, leased.id))
    await channel.settle(leased, { delivered: true, detail: { status: 200, durationMs: 5 } }, null)
    const [row] = await ctx.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, leased.id))
    expect(row).toMatchObject({ status: 'failed', lastError: 'gave up', deliveredAt: null })
  })
})
