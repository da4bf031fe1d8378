import type { Db } from '../../platform/db/database.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { type OrderItemView, toShownItemView } from '../orders/order-view.js'
import { eq } from 'drizzle-orm'
import { type ShownOrderItemRow, shownOrderItems } from '../orders/orders.repo.js'
import { orderItems } from '../orders/orders.table.js'
import type { TransferRow } from './transfer-view.js'

/** A transfer's step in the audit log, on the sender's order. */
export const auditTransfer = (tx: Db, actor: AuditActor, action: string, transfer: TransferRow, data: Record<string, unknown> = {}) =>
  recordAudit(tx, actor, {
    action,
    target: { type: 'order', id: transfer.orderId },
    sellerId: transfer.sellerId,
    data: { transfer_id: transfer.id, identifier: transfer.identifier, ...data },
  })

/** The item a ticket was sold as, with its show's time and venue as they are now (what its emails describe). */
export const soldItem = async (tx: Db, orderItemId: string): Promise<ShownOrderItemRow | undefined> =>
  (await shownOrderItems(tx, eq(orderItems.id, orderItemId)))[0]

/** `soldItem` as the emails show it. */
export const soldItemView = async (tx: Db, orderItemId: string | undefined): Promise<OrderItemView | undefined> => {
  const item = orderItemId === undefined ? undefined : await soldItem(tx, orderItemId)
  return item && toShownItemView(item)
}
