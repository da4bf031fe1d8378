import type { Db } from '../../platform/db/database.js'
import type { Page, Paging } from '../../platform/db/paging.js'
import { AppError } from '../../platform/errors.js'
import { findEndpoint, pageDeliveries, type WebhookDeliveryRow } from './webhooks.repo.js'

/** A page of an endpoint's deliveries, newest first; 404 for no such endpoint. */
export async function listWebhookDeliveries(db: Db, { id, page, limit }: { id: string } & Paging): Promise<Page<WebhookDeliveryRow>> {
  if (!(await findEndpoint(db, id))) throw new AppError('not_found')
  return pageDeliveries(db, id, { page, limit })
}
