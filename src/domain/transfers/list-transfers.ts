import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { visibleOrder } from '../orders/get-order.js'
import { findOrder } from '../orders/orders.repo.js'
import { toTransferView, type TransferView } from './transfer-view.js'
import { orderTransfers } from './transfers.repo.js'

/** An order's transfers, oldest first, for whoever may read the order (as GET /orders/{id}); another order: 404. */
export async function listOrderTransfers(
  db: Db,
  options: { sellerId: string; orderId: string; customerId: string | null; orderTokenHash: string | null; affiliate: AffiliateContext | null },
): Promise<TransferView[]> {
  const order = await findOrder(db, visibleOrder(options))
  if (!order) throw new AppError('not_found')
  const now = new Date()
  return (await orderTransfers(db, order.id)).map((row) => toTransferView(row, now))
}
