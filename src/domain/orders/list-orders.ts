import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { type DocumentsShown, loadOrderViews, type OrderView } from './order-view.js'
import { pageOrders } from './orders.repo.js'
import { orders, type ORDER_STATUSES } from './orders.table.js'

export type ListOrdersOptions = {
  /** Signs the tickets' codes of the order answered (and of its webhook events). */
  codes: TicketCodes
  sellerId: string
  /** Only this customer's orders. */
  customerId?: string | undefined
  /** Only orders placed under this affiliate (by id, as a storefront call resolves it). */
  affiliateId?: string | undefined
  /** Only orders placed under this affiliate code, case-insensitively (back office filter). */
  affiliateCode?: string | undefined
  status?: (typeof ORDER_STATUSES)[number] | undefined
  page: number
  limit: number
  /** Holders' documents: masked unless `whole` (the back office). */
  documents?: DocumentsShown
}

/** A page of a seller's orders, newest first, each with its items and tickets. */
export async function listOrders(db: Db, options: ListOrdersOptions): Promise<{ data: OrderView[]; total: number }> {
  const where = and(
    eq(orders.sellerId, options.sellerId),
    options.customerId ? eq(orders.customerId, options.customerId) : undefined,
    options.affiliateId ? eq(orders.affiliateId, options.affiliateId) : undefined,
    options.affiliateCode ? sql`lower(${orders.affiliateCode}) = lower(${options.affiliateCode})` : undefined,
    options.status ? eq(orders.status, options.status) : undefined,
  )
  const { rows, total } = await pageOrders(db, where, options.limit, (options.page - 1) * options.limit)
  return { data: await loadOrderViews(db, options.codes, rows, options.documents), total }
}
