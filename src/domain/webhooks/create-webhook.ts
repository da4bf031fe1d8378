import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { findSellerById } from '../sellers/sellers.repo.js'
import { checkEndpointUrl, type EndpointUrlPolicy } from './endpoint-url.js'
import { endpointSecret, newSecretSalt } from './signature.js'
import { insertEndpoint, type WebhookEndpointRow } from './webhooks.repo.js'
import type { WebhookEventType } from './webhooks.table.js'

export type CreateWebhookOptions = {
  sellerId: string
  url: string
  /** The event types it receives; absent or null: every type, present and future. */
  events?: WebhookEventType[] | null | undefined
  description?: string | null | undefined
  active?: boolean | undefined
  policy: EndpointUrlPolicy
  /** `secrets.webhookSecrets`: makes the endpoint's secret from its salt. */
  secretKey: Buffer
  actor: AuditActor
}

/** Adds a webhook endpoint to a seller; answers it with its signing secret, which is shown this once. */
export async function createWebhook(db: Db, options: CreateWebhookOptions): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const { sellerId, actor } = options
  if (!(await findSellerById(db, sellerId))) throw new AppError('not_found')
  const url = await checkEndpointUrl(options.url, options.policy)
  const salt = newSecretSalt()
  const endpoint = await db.transaction(async (tx) => {
    const row = await insertEndpoint(tx, {
      sellerId,
      url,
      events: options.events ? [...new Set(options.events)] : null,
      description: options.description ?? null,
      active: options.active ?? true,
      secretSalt: salt,
    })
    await recordAudit(tx, actor, {
      action: 'adm.webhook.created',
      target: { type: 'webhook', id: row.id },
      sellerId,
      data: { url, events: row.events, active: row.active },
    })
    return row
  })
  return { endpoint, secret: endpointSecret(options.secretKey, salt) }
}
