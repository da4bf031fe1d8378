import { randomUUID } from 'node:crypto'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { recordWebhookEvents } from './webhook-events.js'
import { lockEndpoint } from './webhooks.repo.js'

/** Queues a `webhook.ping` event to this endpoint only, whatever it subscribes to and even turned off: a test of the receiver. */
export const pingWebhook = (db: Db, { id, actor }: { id: string; actor: AuditActor }) =>
  db.transaction(async (tx): Promise<{ eventId: string }> => {
    const endpoint = await lockEndpoint(tx, id)
    if (!endpoint) throw new AppError('not_found')
    const eventId = randomUUID()
    await recordWebhookEvents(tx, endpoint.sellerId, [{ id: eventId, type: 'webhook.ping', data: { webhook_id: endpoint.id } }], {
      endpointId: endpoint.id,
    })
    await recordAudit(tx, actor, { action: 'adm.webhook.pinged', target: { type: 'webhook', id }, sellerId: endpoint.sellerId, data: { event_id: eventId } })
    return { eventId }
  })
