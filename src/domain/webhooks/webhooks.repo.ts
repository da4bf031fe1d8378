import { and, asc, count, desc, eq, getTableColumns, sql } from 'drizzle-orm'
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { countUndone } from '../../platform/outbox/lease.js'
import { webhookDeliveries, webhookEndpoints, webhookEvents } from './webhooks.table.js'

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect & { type: string }

export const insertEndpoint = async (db: Db, values: typeof webhookEndpoints.$inferInsert) => (await db.insert(webhookEndpoints).values(values).returning())[0]!

export const findEndpoint = async (db: Db, id: string) => (await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]

/** The endpoint, its row locked until the transaction ends. */
export const lockEndpoint = async (db: Db, id: string) => (await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).for('update'))[0]

export const updateEndpointRow = async (db: Db, id: string, values: PgUpdateSetSource<typeof webhookEndpoints>) =>
  (
    await db
      .update(webhookEndpoints)
      .set({ ...values, updatedAt: sql`now()` })
      .where(eq(webhookEndpoints.id, id))
      .returning()
  )[0]!

export const deleteEndpointRow = (db: Db, id: string) => db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id))

/** A seller's endpoints in the order they were made. */
export async function pageEndpoints(db: Db, sellerId: string, paging: Paging): Promise<Page<WebhookEndpointRow>> {
  const where = eq(webhookEndpoints.sellerId, sellerId)
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(webhookEndpoints)
      .where(where)
      .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id))
      .limit(paging.limit)
      .offset(offsetOf(paging)),
    db.select({ n: count() }).from(webhookEndpoints).where(where),
  ])
  return { rows, total: Number(total?.n ?? 0) }
}

const deliveryColumns = { ...getTableColumns(webhookDeliveries), type: webhookEvents.type }

/** An endpoint's deliveries, newest first, with their event's type. */
export async function pageDeliveries(db: Db, endpointId: string, paging: Paging): Promise<Page<WebhookDeliveryRow>> {
  const where = eq(webhookDeliveries.endpointId, endpointId)
  const [rows, [total]] = await Promise.all([
    db
      .select(deliveryColumns)
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookEvents.seq), desc(webhookDeliveries.id))
      .limit(paging.limit)
      .offset(offsetOf(paging)),
    db.select({ n: count() }).from(webhookDeliveries).where(where),
  ])
  return { rows, total: Number(total?.n ?? 0) }
}

/** One delivery of this endpoint (another endpoint's is not found). */
export const findDelivery = async (db: Db, endpointId: string, deliveryId: string): Promise<WebhookDeliveryRow | undefined> =>
  (
    await db
      .select(deliveryColumns)
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpointId)))
  )[0]

/** A new delivery of the same event to the same endpoint, due now. */
export async function insertRedelivery(db: Db, of: WebhookDeliveryRow): Promise<WebhookDeliveryRow> {
  const [row] = await db
    .insert(webhookDeliveries)
    .values({ eventId: of.eventId, endpointId: of.endpointId, orderingKey: of.orderingKey, eventSeq: of.eventSeq })
    .returning()
  return { ...row!, type: of.type }
}

/** Ends the pending deliveries of an endpoint that no longer receives (turned off). */
export const failPendingDeliveries = (db: Db, endpointId: string, reason: string) =>
  db
    .update(webhookDeliveries)
    .set({ status: 'failed', lastError: reason, lockedUntil: null })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')))

/** Deliveries pending (the backlog) and failed (given up on), for /metrics. */
export const countDeliveriesByStatus = (db: Db) => countUndone(db, webhookDeliveries, 'delivered', ['pending', 'failed'])

/**
 * Deletes up to `limit` events older than `days` days that no delivery still waits for, with
 * their deliveries (cascade); answers how many events.
 */
export async function purgeWebhookEvents(db: Db, days: number, limit: number): Promise<number> {
  const result = await db.execute(sql`
    delete from ${webhookEvents}
     where id in (
       select e.id from ${webhookEvents} e
        where e.created_at < now() - make_interval(days => ${days})
          and not exists (select 1 from ${webhookDeliveries} d where d.event_id = e.id and d.status = 'pending')
        order by e.created_at
        limit ${limit}
        for update skip locked)
    returning id`)
  return result.rows.length
}
