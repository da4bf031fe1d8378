import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findEndpoint, type WebhookEndpointRow } from './webhooks.repo.js'

/** A webhook endpoint; 404 when there is none with this id. */
export async function getWebhook(db: Db, id: string): Promise<WebhookEndpointRow> {
  const endpoint = await findEndpoint(db, id)
  if (!endpoint) throw new AppError('not_found')
  return endpoint
}
