import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { deleteEndpointRow, lockEndpoint } from './webhooks.repo.js'

/** Deletes a webhook endpoint with its deliveries; nothing more is sent to it. */
export const deleteWebhook = (db: Db, { id, actor }: { id: string; actor: AuditActor }) =>
  db.transaction(async (tx) => {
    const current = await lockEndpoint(tx, id)
    if (!current) throw new AppError('not_found')
    await deleteEndpointRow(tx, id)
    await recordAudit(tx, actor, { action: 'adm.webhook.deleted', target: { type: 'webhook', id }, sellerId: current.sellerId, data: { url: current.url } })
  })
