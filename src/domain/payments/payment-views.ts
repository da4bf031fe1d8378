import type { payments, refunds } from './payments.table.js'

export type PaymentRow = typeof payments.$inferSelect
export type RefundRow = typeof refunds.$inferSelect

/** Payment (docs/payments.md). */
export type PaymentView = {
  id: string
  order_id: string
  amount: number
  method: string
  installments: number
  reference: string | null
  created_at: string
}

/** Refund (docs/payments.md). */
export type RefundView = {
  id: string
  order_id: string
  amount: number
  tickets: string[]
  reason: string
  status: 'pending' | 'done'
  reference: string | null
  created_at: string
  done_at: string | null
}

export const toPaymentView = (row: PaymentRow): PaymentView => ({
  id: row.id,
  order_id: row.orderId,
  amount: row.amount,
  method: row.method,
  installments: row.installments,
  reference: row.reference,
  created_at: row.createdAt.toISOString(),
})

export const toRefundView = (row: RefundRow): RefundView => ({
  id: row.id,
  order_id: row.orderId,
  amount: row.amount,
  tickets: row.tickets,
  reason: row.reason,
  status: row.status,
  reference: row.reference,
  created_at: row.createdAt.toISOString(),
  done_at: row.doneAt?.toISOString() ?? null,
})
