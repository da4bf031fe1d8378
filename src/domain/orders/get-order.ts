import { and, eq } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { AppError } from '../../platform/errors.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { type DocumentsShown, loadOrderViews, type OrderView } from './order-view.js'
import { findOrder } from './orders.repo.js'
import { orders } from './orders.table.js'

export type GetOrderOptions = {
  /** Signs the tickets' codes of the order answered (and of its webhook events). */
  codes: TicketCodes
  /** The caller's seller; null only for staff, who read every seller's orders. */
  sellerId: string | null
  /** With `X-Affiliate-Code`: only that affiliate's orders. */
  affiliate: AffiliateContext | null
  /** With `X-Customer-Token`: only that customer's orders. */
  customerId: string | null
  /** With `X-Order-Token`: only the order it opens (the token's hash). */
  orderTokenHash?: string | null | undefined
  orderId: string
  /** Holders' documents: masked unless `whole` (the back office). */
  documents?: DocumentsShown
}

/** The order as its caller may see it: of this seller (and of the affiliate, and of the customer, when they are given). */
export const visibleOrder = (options: Omit<GetOrderOptions, 'codes' | 'affiliate' | 'documents'> & { affiliate: Pick<AffiliateContext, 'id'> | null }) =>
  and(
    eq(orders.id, options.orderId),
    options.sellerId === null ? undefined : eq(orders.sellerId, options.sellerId),
    options.affiliate ? eq(orders.affiliateId, options.affiliate.id) : undefined,
    options.customerId ? eq(orders.customerId, options.customerId) : undefined,
    options.orderTokenHash ? eq(orders.orderTokenHash, options.orderTokenHash) : undefined,
  )

/** An order of this seller (and of the affiliate, and of the customer, when they are given). */
export async function getOrder(db: Db, options: GetOrderOptions): Promise<OrderView> {
  const order = await findOrder(db, visibleOrder(options))
  if (!order) throw new AppError('not_found')
  return (await loadOrderViews(db, options.codes, [order], options.documents))[0]!
}
