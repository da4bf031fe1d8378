import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { findDelivery, insertRedelivery, lockEndpoint, type WebhookDeliveryRow } from './webhooks.repo.js'

export type RedeliverWebhookOptions = { id: string; deliveryId: string; actor: AuditActor }

/**
 * Sends a delivery's event again, as a new delivery due now (same event id, so receivers can
 * tell), whatever became of the first; sent even to an endpoint turned off, as staff asked for it.
 */
export const redeliverWebhook = (db: Db, { id, deliveryId, actor }: RedeliverWebhookOptions) =>
  db.transaction(async (tx): Promise<WebhookDeliveryRow> => {
    const endpoint = await lockEndpoint(tx, id)
    const delivery = endpoint && (await findDelivery(tx, endpoint.id, deliveryId))
    if (!endpoint || !delivery) throw new AppError('not_found')
    const again = await insertRedelivery(tx, delivery)
    await recordAudit(tx, actor, {
      action: 'adm.webhook.redelivered',
      target: { type: 'webhook', id },
      sellerId: endpoint.sellerId,
      data: { delivery_id: deliveryId, event_id: delivery.eventId, new_delivery_id: again.id },
    })
    return again
  })
