import { and, asc, count, desc, eq, getTableColumns, sql } from 'drizzle-orm'
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { countUndone, leaseDue } from '../../platform/outbox/lease.js'
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

/** A delivery as the worker leases it: its event, and where and how to sign and send it. */
export type LeasedDelivery = {
  id: string
  attempts: number
  createdAt: Date
  endpointId: string
  url: string
  secretSalt: string
  /** The replaced secret's salt while it still signs. */
  previousSecretSalt: string | null
  eventId: string
  type: string
  eventCreatedAt: Date
  sellerId: string
  affiliateCode: string | null
  payload: unknown
}

/** What the receiver answered to an attempt (no status: it did not answer). */
export type DeliveryAnswer = { status: number | null; durationMs: number }

/**
 * Leases up to `limit` due deliveries to this worker for `leaseSeconds` (`leaseDue`), with their
 * endpoint and event. A delivery waits while an earlier event of the same order is still pending
 * for its endpoint, so that an order's events arrive in order.
 */
export async function claimDueDeliveries(db: Db, limit: number, leaseSeconds: number): Promise<LeasedDelivery[]> {
  const earlierPending = sql`not exists (
    select 1 from ${webhookDeliveries} earlier
     where earlier.endpoint_id = ${webhookDeliveries}.endpoint_id and earlier.ordering_key = ${webhookDeliveries}.ordering_key
       and earlier.status = 'pending' and earlier.event_seq < ${webhookDeliveries}.event_seq)`
  const result = await db.execute<Record<string, unknown>>(sql`
    with leased as (
      ${leaseDue(webhookDeliveries, { limit, leaseSeconds, where: earlierPending })}
      returning id, attempts, created_at, endpoint_id, event_id)
    select l.id, l.attempts, l.created_at, ep.id as endpoint_id, ep.url, ep.secret_salt,
           case when ep.previous_secret_expires_at > now() then ep.previous_secret_salt end as previous_secret_salt,
           ev.id as event_id, ev.type, ev.created_at as event_created_at, ev.seller_id, ev.affiliate_code, ev.payload
      from leased l
      join ${webhookEndpoints} ep on ep.id = l.endpoint_id
      join ${webhookEvents} ev on ev.id = l.event_id`)
  return result.rows.map((row) => ({
    id: String(row.id),
    attempts: Number(row.attempts),
    createdAt: new Date(row.created_at as string),
    endpointId: String(row.endpoint_id),
    url: String(row.url),
    secretSalt: String(row.secret_salt),
    previousSecretSalt: (row.previous_secret_salt as string | null) ?? null,
    eventId: String(row.event_id),
    type: String(row.type),
    eventCreatedAt: new Date(row.event_created_at as string),
    sellerId: String(row.seller_id),
    affiliateCode: (row.affiliate_code as string | null) ?? null,
    payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
  }))
}

/** Marks a delivery delivered and its endpoint no longer failing, in one statement. */
export async function markDeliveryDelivered(db: Db, delivery: Pick<LeasedDelivery, 'id' | 'endpointId'>, answer: DeliveryAnswer): Promise<void> {
  await db.execute(sql`
    with done as (
      update ${webhookDeliveries} set status = 'delivered', delivered_at = now(), response_status = ${answer.status},
             duration_ms = ${answer.durationMs}, last_error = null, locked_until = null
       -- Like a failure's: an attempt that answers after the row was settled (its lease ran
       -- out, another worker tried it or gave up) changes nothing of it.
       where id = ${delivery.id} and status = 'pending')
    update ${webhookEndpoints} set failing_since = null where id = ${delivery.endpointId} and failing_since is not null`)
}

/** Records a failed attempt: tried again in `retryInMs`, or given up on (`failed`) when null. */
export async function markDeliveryFailed(db: Db, id: string, answer: DeliveryAnswer, error: string, retryInMs: number | null): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({
      responseStatus: answer.status,
      durationMs: answer.durationMs,
      lockedUntil: null,
      lastError: error,
      ...(retryInMs === null ? { status: 'failed' as const } : { nextAttemptAt: sql`now() + make_interval(secs => ${retryInMs / 1000})` }),
    })
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, 'pending')))
}

/** Notes that an endpoint is failing (since now, unless it already was); answers whether for `forMs` already. */
export async function noteEndpointFailing(db: Db, endpointId: string, forMs: number) {
  const [endpoint] = await db
    .update(webhookEndpoints)
    .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, now())` })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning({
      active: webhookEndpoints.active,
      url: webhookEndpoints.url,
      failingLongEnough: sql<boolean>`${webhookEndpoints.failingSince} <= now() - make_interval(secs => ${forMs / 1000})`,
    })
  return endpoint
}

/** Ends the pending deliveries of an endpoint that no longer receives (turned off). */
export const failPendingDeliveries = (db: Db, endpointId: string, reason: string) =>
  db
    .update(webhookDeliveries)
    .set({ status: 'failed', lastError: reason, lockedUntil: null })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')))

/** Deliveries pending (the backlog) and failed (given up on), for /metrics. */
export const countDeliveriesByStatus = (db: Db) => countUndone(db, webhookDeliveries)

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
