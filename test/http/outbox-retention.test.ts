import { inArray, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '../../src/domain/webhooks/webhooks.table.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { useTestApp } from '../build-app.js'
import { createTestSeller } from '../factories/sellers.js'

// The outbox keeps what it delivered or gave up on for OUTBOX_RETENTION_DAYS (30), for the
// deliveries listing, then forgets it; what is still pending is never deleted, however old.

const ctx = useTestApp()
const daysAgo = (days: number) => sql`now() - make_interval(days => ${days})`

let endpointId: string
let _sellerId: string

beforeAll(async () => {
  const { seller } = await createTestSeller(ctx.app)
  _sellerId = seller.id
  const [endpoint] = await ctx.app.db
    .insert(webhookEndpoints)
    .values({ sellerId: seller.id, url: 'https://hooks.example.com/x', secretSalt: 'salt', active: true })
    .returning()
  endpointId = endpoint!.id
})

async function event(id: string, ageDays: number, status: 'pending' | 'delivered' | 'failed') {
  const [row] = await ctx.app.db
    .insert(webhookEvents)
    .values({
      id,
      sellerId: (await ctx.app.db.select().from(webhookEndpoints))[0]!.sellerId,
      type: 'order.confirmed',
      payload: {},
      createdAt: daysAgo(ageDays),
    })
    .returning()
  await ctx.app.db.insert(webhookDeliveries).values({ eventId: id, endpointId, eventSeq: row!.seq, status, createdAt: daysAgo(ageDays) })
}

describe('outbox retention', () => {
  it('deletes delivered and given-up history past the retention, never what is pending, and keeps the recent', async () => {
    const ids = {
      oldDelivered: '00000000-0000-4000-8000-000000000001',
      oldFailed: '00000000-0000-4000-8000-000000000002',
      oldPending: '00000000-0000-4000-8000-000000000003',
      recentDelivered: '00000000-0000-4000-8000-000000000004',
    }
    await event(ids.oldDelivered, 31, 'delivered')
    await event(ids.oldFailed, 40, 'failed')
    await event(ids.oldPending, 45, 'pending')
    await event(ids.recentDelivered, 29, 'delivered')
    await ctx.app.db.insert(outboxEmails).values([
      { kind: 'test.old-delivered', to: 'old@example.com', subject: 's', text: '', status: 'delivered', createdAt: daysAgo(31) },
      { kind: 'test.old-failed', to: 'failed@example.com', subject: 's', text: '', status: 'failed', createdAt: daysAgo(60) },
      { kind: 'test.old-pending', to: 'late@example.com', subject: 's', text: 'still to send', status: 'pending', createdAt: daysAgo(60) },
      { kind: 'test.recent', to: 'new@example.com', subject: 's', text: '', status: 'delivered', createdAt: daysAgo(1) },
    ])

    expect(await ctx.app.outbox.housekeep()).toEqual({ email: 2, webhook: 2, waiting_list: 0 })

    const events = await ctx.app.db
      .select({ id: webhookEvents.id })
      .from(webhookEvents)
      .where(inArray(webhookEvents.id, Object.values(ids)))
    expect(events.map((e) => e.id).sort()).toEqual([ids.oldPending, ids.recentDelivered])
    const deliveries = await ctx.app.db.select({ eventId: webhookDeliveries.eventId }).from(webhookDeliveries)
    expect(deliveries.map((d) => d.eventId).sort()).toEqual([ids.oldPending, ids.recentDelivered])
    const emails = await ctx.app.db.select({ kind: outboxEmails.kind }).from(outboxEmails)
    expect(emails.map((e) => e.kind).sort()).toEqual(['test.old-pending', 'test.recent'])
    // Nothing more to do.
    expect(await ctx.app.outbox.housekeep()).toEqual({ email: 0, webhook: 0, waiting_list: 0 })
  })
})
