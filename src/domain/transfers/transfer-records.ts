import type { Db } from '../../platform/db/database.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { type OrderItemView, toShownItemView } from '../orders/order-view.js'
import { orderDetails } from '../orders/orders.repo.js'
import type { TransferRow } from './transfer-view.js'

/** A transfer's step in the audit log, on the sender's order. */
export const auditTransfer = (tx: Db, actor: AuditActor, action: string, transfer: TransferRow, data: Record<string, unknown> = {}) =>
  recordAudit(tx, actor, {
    action,
    target: { type: 'order', id: transfer.orderId },
    sellerId: transfer.sellerId,
    data: { transfer_id: transfer.id, identifier: transfer.identifier, ...data },
  })

/** The item a ticket was sold as, as its emails describe it (its show's time and venue as they are now). */
export const soldItemView = async (tx: Db, orderId: string, orderItemId: string | undefined): Promise<OrderItemView | undefined> => {
  const item = (await orderDetails(tx, [orderId])).items.find((row) => row.id === orderItemId)
  return item && toShownItemView(item)
}
