import { afterEach, describe, expect, it } from 'vitest'
import { createWebhook } from '../../src/domain/webhooks/create-webhook.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestSeller } from '../factories/sellers.js'
import { queryDatabase } from '../support/commerce-invariants.js'
import { callServer, freshDatabase, openFixtures, startServer } from '../support/live-server.js'
import type { ServerProcess } from '../support/server-process.js'
import { eventually } from '../support/smtp-sink.js'
import { verifyWebhook } from '../support/verify-webhook.js'
import { WebhookReceiver } from '../support/webhook-receiver.js'

/** Webhooks survive the app's death: an event committed with its change is delivered after a restart. */
const LENIENT = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_INSECURE: 'true' }
let servers: ServerProcess[] = []
let receiver: WebhookReceiver | undefined
afterEach(async () => {
  for (const server of servers) await server.stop('SIGKILL')
  await receiver?.stop()
  servers = []
  receiver = undefined
})

describe('kill -9 of the app between the commit and the delivery', () => {
  it('delivers the event after the restart, once, signed', async () => {
    const databaseUrl = await freshDatabase()
    receiver = await WebhookReceiver.start()
    const fixtures = await openFixtures(databaseUrl, LENIENT)
    const app = fixtures.app
    const seller = await createTestSeller(app)
    const inventory = await createTestInventory(app, await createTestEvent(app, seller.seller.id))
    const buyer = await insertSignedInCustomer(app, seller)
    const { secret } = await createWebhook(app.db, {
      sellerId: seller.seller.id,
      url: receiver.url('/after-restart'),
      policy: app.config.webhooks,
      secretKey: app.secrets.webhookSecrets,
      actor: { type: 'system' },
    })
    await fixtures.close()

    // A worker that would wait a minute before its first pass: the sale commits, nothing is sent yet.
    servers.push(await startServer(databaseUrl, { ...LENIENT, OUTBOX_POLL_MS: '60000' }))
    const base = servers[0]!.baseUrl
    const basket = await callServer(base, 'POST', '/stf/v1/baskets', { headers: buyer.headers, body: { items: [{ inventory_id: inventory.id, quantity: 2 }] } })
    expect(basket.status).toBe(201)
    const order = await callServer(base, 'POST', `/stf/v1/baskets/${basket.body.id}/checkout`, { headers: buyer.headers, body: { payment_method: 'pix' } })
    expect(order.status).toBe(201)
    servers[0]!.child.kill('SIGKILL')
    await servers[0]!.exited
    expect(receiver.received).toHaveLength(0)
    const pending = await queryDatabase<{ status: string }>(databaseUrl, 'select status from webhook_deliveries')
    expect(pending).toEqual([{ status: 'pending' }])

    servers.push(await startServer(databaseUrl, { ...LENIENT, OUTBOX_POLL_MS: '50' }))
    await eventually(() => receiver!.received.length > 0, 20_000)
    await eventually(
      async () => (await queryDatabase<{ status: string }>(databaseUrl, 'select status from webhook_deliveries'))[0]?.status === 'delivered',
      10_000,
    )
    expect(receiver.received).toHaveLength(1)
    const [request] = receiver.received
    expect(request!.json).toMatchObject({ type: 'order.confirmed', data: { id: order.body.id } })
    expect(verifyWebhook(request!.body, String(request!.headers['boxoffice-signature']), secret)).toBe(true)
  })
})
