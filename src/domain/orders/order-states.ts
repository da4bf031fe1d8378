import { AppError } from '../../platform/errors.js'
import type { OrderStatus } from './orders.table.js'

/**
 * An order's life (docs/payments.md), decided here and nowhere else:
 *
 *   checkout ─▶ pending (awaiting payment) | confirmed (paid at once)
 *   pending ──pay──▶ confirmed ──cancel / withdraw / refund of everything left──▶ cancelled
 *      │ └─cancel / withdraw──▶ cancelled
 *      └─due, unpaid──▶ expired ──pay, its tickets taken again──▶ confirmed
 *
 * Each change is asked with what is to happen; the answer is the status it leads to, `same` for
 * a repeat that changes nothing (answered as the order is), or the refusal to send.
 */
export type OrderChange = 'pay' | 'expire' | 'cancel' | 'withdraw' | 'refund'

export type Verdict = { to: OrderStatus } | { same: true }

const TRANSITIONS: Record<OrderChange, Record<OrderStatus, Verdict | (() => AppError)>> = {
  // A payment confirms a pending order; an expired one only if its tickets can be taken again (pay-order.ts).
  pay: {
    pending: { to: 'confirmed' },
    expired: { to: 'confirmed' },
    confirmed: () => new AppError('order_paid'),
    cancelled: () => new AppError('order_cancelled'),
  },
  // Only a pending order expires; one paid or ended meanwhile is left alone.
  expire: { pending: { to: 'expired' }, expired: { same: true }, confirmed: { same: true }, cancelled: { same: true } },
  // The back office: a pending order ends with nothing to refund, a confirmed one with a refund of what is left.
  cancel: { pending: { to: 'cancelled' }, confirmed: { to: 'cancelled' }, expired: { same: true }, cancelled: { same: true } },
  // The buyer's withdrawal: a pending order simply ends; a confirmed one within its window (withdraw-order.ts).
  withdraw: {
    pending: { to: 'cancelled' },
    confirmed: { to: 'cancelled' },
    expired: () => new AppError('order_expired', { message: 'This order expired unpaid: there is nothing to withdraw from' }),
    cancelled: () => new AppError('order_cancelled'),
  },
  // A refund of everything left, naming no tickets (refund-order.ts): a paid order ends with it; a cancelled one
  // (its tickets gone already) is refunded as it is. An order never paid has nothing to refund.
  refund: {
    pending: () => new AppError('refund_exceeds_paid', { message: 'This order is not paid: there is nothing to refund' }),
    expired: () => new AppError('refund_exceeds_paid', { message: 'This order expired unpaid: there is nothing to refund' }),
    confirmed: { to: 'cancelled' },
    cancelled: { same: true },
  },
}

/** A checkout's order: awaiting payment when asked and there is something to pay (a free order is paid already), else confirmed. */
export const placedStatus = (awaitPayment: boolean, total: number): 'pending' | 'confirmed' => (awaitPayment && total > 0 ? 'pending' : 'confirmed')

/** Where `change` takes an order in `status`: its next status, `same`, or a thrown refusal. */
export function decide(status: OrderStatus, change: OrderChange): Verdict {
  const verdict = TRANSITIONS[change][status]
  if (typeof verdict === 'function') throw verdict()
  return verdict
}

/** Whether an order in this status has sold its tickets for good: a void or refund of them is written to the ledger. */
export const isSold = (status: OrderStatus) => status === 'confirmed'
