import type { Logger } from 'pino'
import type { Db } from '../../platform/db/database.js'
import { emailInsert } from '../../platform/mail/outbox.repo.js'
import { jitteredDelayMs } from '../../platform/outbox/backoff.js'
import type { HttpSender } from '../../platform/outbox/http-sender.js'
import type { AttemptOutcome, OutboxChannel } from '../../platform/outbox/worker.js'
import { findSellerById } from '../sellers/sellers.repo.js'
import { endpointSecret, signatureHeader } from './signature.js'
import {
  claimDueDeliveries,
  failPendingDeliveries,
  markDeliveryDelivered,
  markDeliveryFailed,
  noteEndpointFailing,
  purgeWebhookEvents,
  updateEndpointRow,
  type DeliveryAnswer,
  type LeasedDelivery,
} from './webhooks.repo.js'

/** Deliveries are retried for this long, and an endpoint failing for this long is turned off. */
export const GIVE_UP_AFTER_MS = 3 * 24 * 3600 * 1000
/** The longest wait between two attempts. */
const MAX_RETRY_MS = 6 * 3600 * 1000

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
 * Webhook deliveries through the outbox: each is POSTed signed (docs/webhooks.md), only a 2xx counts,
 * a failure is tried again after a jittered, doubling delay for up to 3 days, and an endpoint
 * whose every attempt has failed for 3 days is turned off and its seller's contact told. A
 * delivery waits while an earlier event of the same order is still pending for its endpoint, so
 * that an order's events arrive in order (`order.confirmed` before `order.cancelled`).
 */
export function webhookChannel(options: WebhookChannelOptions): OutboxChannel<LeasedDelivery, DeliveryAnswer> {
  const { db, sender, logger, secretKey, retryBaseMs } = options
  const leaseSeconds = options.leaseSeconds ?? 60

  async function send(delivery: LeasedDelivery): Promise<AttemptOutcome<DeliveryAnswer>> {
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

  async function settle(delivery: LeasedDelivery, outcome: AttemptOutcome<DeliveryAnswer>, retryIn: number | null) {
    if (outcome.delivered) return markDeliveryDelivered(db, delivery, outcome.detail)
    await db.transaction(async (tx) => {
      await markDeliveryFailed(tx, delivery.id, outcome.detail, outcome.error.slice(0, 500), retryIn)
      const endpoint = await noteEndpointFailing(tx, delivery.endpointId, GIVE_UP_AFTER_MS)
      if (endpoint?.active && endpoint.failingLongEnough) await disable(tx, delivery, endpoint.url, outcome.error)
    })
  }

  /** Turns off an endpoint that has failed for 3 days, and tells the seller's contact. */
  async function disable(tx: Db, delivery: LeasedDelivery, url: string, lastError: string) {
    const reason = `Every delivery failed for 3 days (last: ${lastError.slice(0, 200)})`
    await updateEndpointRow(tx, delivery.endpointId, { active: false, disabledReason: reason })
    await failPendingDeliveries(tx, delivery.endpointId, 'endpoint disabled')
    const seller = await findSellerById(tx, delivery.sellerId)
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
    deferrable: true,
    batchSize: 32,
    concurrency: 8,
    claim: (limit) => claimDueDeliveries(db, limit, leaseSeconds),
    send,
    retryInMs,
    settle,
    purge: (days, limit) => purgeWebhookEvents(db, days, limit),
    close: () => sender.close(),
  }
}
