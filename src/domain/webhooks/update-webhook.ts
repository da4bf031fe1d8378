import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { checkEndpointUrl, type EndpointUrlPolicy } from './endpoint-url.js'
import { failPendingDeliveries, findEndpoint, lockEndpoint, updateEndpointRow, type WebhookEndpointRow } from './webhooks.repo.js'
import type { WebhookEventType } from './webhooks.table.js'

export type UpdateWebhookOptions = {
  id: string
  url?: string | undefined
  events?: WebhookEventType[] | null | undefined
  description?: string | null | undefined
  active?: boolean | undefined
  policy: EndpointUrlPolicy
  actor: AuditActor
}

/**
 * Changes a webhook endpoint. Turning it off ends its pending deliveries (failed, "endpoint
 * deactivated"); turning it on again forgets why the platform turned it off and its failures.
 */
export async function updateWebhook(db: Db, options: UpdateWebhookOptions): Promise<WebhookEndpointRow> {
  if (!(await findEndpoint(db, options.id))) throw new AppError('not_found')
  const url = options.url === undefined ? undefined : await checkEndpointUrl(options.url, options.policy)
  return db.transaction(async (tx) => {
    const current = await lockEndpoint(tx, options.id)
    if (!current) throw new AppError('not_found')
    const values: Partial<WebhookEndpointRow> = {}
    if (url !== undefined && url !== current.url) values.url = url
    if (options.events !== undefined) values.events = options.events ? [...new Set(options.events)] : null
    if (options.description !== undefined) values.description = options.description
    if (options.active !== undefined && options.active !== current.active) {
      values.active = options.active
      values.disabledReason = null
      values.failingSince = null
    }
    const updated = await updateEndpointRow(tx, current.id, values)
    if (values.active === false) await failPendingDeliveries(tx, current.id, 'endpoint deactivated')
    await recordAudit(tx, options.actor, {
      action: 'adm.webhook.updated',
      target: { type: 'webhook', id: current.id },
      sellerId: current.sellerId,
      data: { fields: Object.keys(values).filter((key) => key !== 'disabledReason' && key !== 'failingSince') },
    })
    return updated
  })
}
