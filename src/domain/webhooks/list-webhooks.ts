import type { Db } from '../../platform/db/database.js'
import type { Page, Paging } from '../../platform/db/paging.js'
import { AppError } from '../../platform/errors.js'
import { findSellerById } from '../sellers/sellers.repo.js'
import { pageEndpoints, type WebhookEndpointRow } from './webhooks.repo.js'

export type ListWebhooksOptions = { sellerId: string } & Paging

/** A page of a seller's webhook endpoints, in the order they were made; 404 for no such seller. */
export async function listWebhooks(db: Db, { sellerId, page, limit }: ListWebhooksOptions): Promise<Page<WebhookEndpointRow>> {
  if (!(await findSellerById(db, sellerId))) throw new AppError('not_found')
  return pageEndpoints(db, sellerId, { page, limit })
}
