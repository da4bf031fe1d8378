import type { TransferStatus, ticketTransfers } from '../orders/orders.table.js'

export type TransferRow = typeof ticketTransfers.$inferSelect

/** A transfer as the API answers it (docs/transfers.md). */
export type TransferView = {
  id: string
  order_id: string
  identifier: string
  status: TransferStatus
  recipient: { email: string; name: string }
  expires_at: string
  created_at: string
}

/** Its status as it stands: a pending transfer whose deadline passed is `expired`, whether or not a later call wrote it down. */
export const transferStatus = (row: Pick<TransferRow, 'status' | 'expiresAt'>, now = new Date()): TransferStatus =>
  row.status === 'pending' && row.expiresAt <= now ? 'expired' : row.status

export const toTransferView = (row: TransferRow, now?: Date): TransferView => ({
  id: row.id,
  order_id: row.orderId,
  identifier: row.identifier,
  status: transferStatus(row, now),
  recipient: { email: row.recipientEmail, name: row.recipientName },
  expires_at: row.expiresAt.toISOString(),
  created_at: row.createdAt.toISOString(),
})
