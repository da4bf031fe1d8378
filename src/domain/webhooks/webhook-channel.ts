import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db } from '../../platform/db/database.js'
import { emailInsert } from '../../platform/mail/outbox.repo.js'
import { jitteredDelayMs } from '../../platform/outbox/backoff.js'
import type { HttpSender } from '../../platform/outbox/http-sender.js'
import { leaseDue } from '../../platform/outbox/lease.js'
import type { AttemptOutcome, OutboxChannel } from '../../platform/outbox/worker.js'
import { sellers } from '../sellers/sellers.table.js'
import { endpointSecret, signatureHeader } from './signature.js'
import { failPendingDeliveries, purgeWebhookEvents } from './webhooks.repo.js'
import { webhookDeliveries, webhookEndpoints, webhookEvents } from './webhooks.table.js'

/** Deliveries are retried for this long, and an endpoint failing for this long is turned off. */
export const GIVE_UP_AFTER_MS = 3 * 24 * 3600 * 1000
/** The longest wait between two attempts. */
const MAX_RETRY_MS = 6 * 3600 * 1000

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

type Answer = { status: number | null; durationMs: number }

export type WebhookChannelOptions = {
  db: Db
  sender: HttpSender
  logger: Logger
  /** `secrets.webhookSecrets`. */
  secretKey: Buffer
  /** First retry delay; doubling with jitter up to 6 hours. */
  retryBaseMs: number
  leaseSeconds?: number
}

/**
 * Webhook deliveries through the outbox: each is POSTed signed (API.md 7.4), only a 2xx counts,
 * a failure is tried again after a jittered, doubling delay for up to 3 days, and an endpoint
 * whose every attempt has failed for 3 days is turned off and its seller's contact told. A
 * delivery waits while an earlier event of the same order is still pending for its endpoint, so
 * that an order's events arrive in order (`order.confirmed` before `order.cancelled`).
 */
export function webhookChannel(options: WebhookChannelOptions): OutboxChannel<LeasedDelivery, Answer> {
  const { db, sender, logger, secretKey, retryBaseMs } = options
  const leaseSeconds = options.leaseSeconds ?? 60

  async function claim(limit: number): Promise<LeasedDelivery[]> {
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

  async function send(delivery: LeasedDelivery): Promise<AttemptOutcome<Answer>> {
    const body = JSON.stringify({
      id: delivery.eventId,
      type: delivery.type,
      created_at: delivery.eventCreatedAt.toISOString(),
      seller_id: delivery.sellerId,
      affiliate_code: delivery.affiliateCode,
      data: delivery.payload,
    })
    const secrets = [delivery.secretSalt, ...(delivery.previousSecretSalt ? [delivery.previousSecretSalt] : [])].map((salt) => endpointSecret(secretKey, salt))
    const started = performance.now()
    try {
      const answer = await sender.postJson(delivery.url, body, {
        'boxoffice-event-id': delivery.eventId,
        'boxoffice-signature': signatureHeader(secrets, Math.floor(Date.now() / 1000), body),
      })
      if (answer.status >= 200 && answer.status < 300) return { delivered: true, detail: answer }
      const redirect = answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed)' : ''
      return { delivered: false, error: `HTTP ${answer.status}${redirect}`, detail: answer }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      return { delivered: false, error: message, detail: { status: null, durationMs: Math.round(performance.now() - started) } }
    }
  }

  const retryInMs = (delivery: LeasedDelivery) =>
    Date.now() - delivery.createdAt.getTime() >= GIVE_UP_AFTER_MS ? null : jitteredDelayMs(delivery.attempts, retryBaseMs, MAX_RETRY_MS)

  async function settle(delivery: LeasedDelivery, outcome: AttemptOutcome<Answer>, retryIn: number | null) {
    const answered = { responseStatus: outcome.detail.status, durationMs: outcome.detail.durationMs, lockedUntil: null }
    if (outcome.delivered) {
      await db.execute(sql`
        with done as (
          update ${webhookDeliveries} set status = 'delivered', delivered_at = now(), response_status = ${answered.responseStatus},
                 duration_ms = ${answered.durationMs}, last_error = null, locked_until = null
           -- Like a failure's: an attempt that answers after the row was settled (its lease ran
           -- out, another worker tried it or gave up) changes nothing of it.
           where id = ${delivery.id} and status = 'pending')
        update ${webhookEndpoints} set failing_since = null where id = ${delivery.endpointId} and failing_since is not null`)
      return
    }
    await db.transaction(async (tx) => {
      await tx
        .update(webhookDeliveries)
        .set({
          ...answered,
          lastError: outcome.error.slice(0, 500),
          ...(retryIn === null ? { status: 'failed' as const } : { nextAttemptAt: sql`now() + make_interval(secs => ${retryIn / 1000})` }),
        })
        .where(sql`${webhookDeliveries.id} = ${delivery.id} and ${webhookDeliveries.status} = 'pending'`)
      const [endpoint] = await tx
        .update(webhookEndpoints)
        .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, now())` })
        .where(sql`${webhookEndpoints.id} = ${delivery.endpointId}`)
        .returning({
          active: webhookEndpoints.active,
          url: webhookEndpoints.url,
          failingLongEnough: sql<boolean>`${webhookEndpoints.failingSince} <= now() - make_interval(secs => ${GIVE_UP_AFTER_MS / 1000})`,
        })
      if (endpoint?.active && endpoint.failingLongEnough) await disable(tx, delivery, endpoint.url, outcome.error)
    })
  }

  /** Turns off an endpoint that has failed for 3 days, and tells the seller's contact. */
  async function disable(tx: Db, delivery: LeasedDelivery, url: string, lastError: string) {
    const reason = `Every delivery failed for 3 days (last: ${lastError.slice(0, 200)})`
    await tx
      .update(webhookEndpoints)
      .set({ active: false, disabledReason: reason, updatedAt: sql`now()` })
      .where(sql`${webhookEndpoints.id} = ${delivery.endpointId}`)
    await failPendingDeliveries(tx, delivery.endpointId, 'endpoint disabled')
    const [seller] = await tx.select({ name: sellers.name, contactEmail: sellers.contactEmail }).from(sellers).where(sql`${sellers.id} = ${delivery.sellerId}`)
    logger.warn({ endpointId: delivery.endpointId, sellerId: delivery.sellerId, notified: Boolean(seller?.contactEmail) }, 'webhook endpoint disabled')
    if (seller?.contactEmail) {
      await emailInsert(tx, {
        kind: 'adm.webhook_disabled',
        to: seller.contactEmail,
        subject: 'A webhook endpoint was turned off',
        text:
          `Every delivery to the webhook endpoint ${url} of ${seller.name} has failed for 3 days, so it was turned off.\n` +
          `Last error: ${lastError.slice(0, 200)}\n\nFix the receiver, then turn the endpoint on again (PUT /adm/v1/webhooks/${delivery.endpointId} with active: true) ` +
          'and redeliver what it missed (POST /adm/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver).',
      })
    }
  }

  return {
    kind: 'webhook',
    batchSize: 32,
    concurrency: 8,
    claim,
    send,
    retryInMs,
    settle,
    purge: (days, limit) => purgeWebhookEvents(db, days, limit),
    close: () => sender.close(),
  }
}
