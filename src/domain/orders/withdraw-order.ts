import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { AuditActor } from '../audit/record-audit.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import type { SellerSettings } from '../sellers/seller-settings.js'
import { decide } from './order-states.js'
import { visibleOrder } from './get-order.js'
import { loadOrderViews, type OrderView } from './order-view.js'
import { endOrderWithRefund } from './end-order.js'
import { refuseTransferOrder } from './order-voids.js'
import { lockOrderWhere } from './orders.repo.js'
import { withdrawalClock, type WithdrawalClock } from './withdrawal.repo.js'

const DAY_MS = 86_400_000

/** The reason of the refund a withdrawal leaves, as the buyer and the partner read it. */
export const WITHDRAWAL_REFUND_REASON = 'Withdrawal by the buyer'

/**
 * Whether a paid order may still be withdrawn from (docs/payments.md), and until when: within
 * `withdrawal_days` × 24 h of the purchase and up to the cutoff before its earliest ticket's
 * date, whichever comes first (`until`, inclusive). `withdrawal_days` 0 turns it off: closed,
 * `until` the purchase itself.
 */
export function withdrawalWindow(clock: WithdrawalClock, withdrawalDays: number): { open: boolean; until: Date } {
  if (withdrawalDays <= 0) return { open: false, until: new Date(clock.purchasedAt) }
  const byDays = clock.purchasedAt + withdrawalDays * DAY_MS
  const until = clock.cutoff === null ? byDays : Math.min(byDays, clock.cutoff)
  return { open: clock.now <= until, until: new Date(until) }
}

export type WithdrawOrderOptions = {
  /** Signs the tickets' codes of the order answered (and of its webhook events). */
  codes: TicketCodes
  sellerId: string
  /** The buyer: only its own orders (another's is not found); null: the order its token opens. */
  customerId: string | null
  /** With `X-Order-Token`: only the order it opens (the token's hash). */
  orderTokenHash?: string | null | undefined
  /** Under `X-Affiliate-Code`, only orders placed under it. */
  affiliateId?: string | undefined
  orderId: string
  settings: Pick<SellerSettings, 'withdrawal_days' | 'withdrawal_cutoff_hours' | 'timezone'>
  actor: AuditActor
}

/**
 * The buyer's withdrawal (Brazil's consumer code, art. 49; docs/payments.md). A paid order within its
 * window (`withdrawalWindow`, judged on the database's clock under the order's lock) is
 * `cancelled`, its tickets go back on sale and are voided (the ledger voids them), and a pending
 * refund of everything left to refund is created for the partner to execute; outside it: 409
 * `withdrawal_closed` with `details.until`. An order awaiting payment simply ends (`cancelled`,
 * nothing to refund). A cancelled order: 409 `order_cancelled`; an expired one: 409 `order_expired`.
 * Webhooks `order.cancelled` and `refund.created`, and the buyer's refund email, go with it.
 */
export const withdrawOrder = (db: Db, options: WithdrawOrderOptions) =>
  freeingTickets(db, async (tx, stock): Promise<OrderView> => {
    const order = await lockOrderWhere(
      tx,
      visibleOrder({
        orderId: options.orderId,
        sellerId: options.sellerId,
        customerId: options.customerId,
        orderTokenHash: options.orderTokenHash,
        affiliate: options.affiliateId ? { id: options.affiliateId } : null,
      }),
    )
    if (!order) throw new AppError('not_found')
    refuseTransferOrder(order)
    const verdict = decide(order.status, 'withdraw')
    if ('same' in verdict) return (await loadOrderViews(tx, options.codes, [order]))[0]!
    if (order.status === 'confirmed') {
      const clock = await withdrawalClock(tx, order.id, { timezone: options.settings.timezone, cutoffHours: options.settings.withdrawal_cutoff_hours })
      const window = withdrawalWindow(clock, options.settings.withdrawal_days)
      if (!window.open) throw new AppError('withdrawal_closed', { details: { until: window.until.toISOString() } })
    }

    return endOrderWithRefund(tx, stock, order, {
      codes: options.codes,
      to: verdict.to,
      reason: WITHDRAWAL_REFUND_REASON,
      action: 'stf.order.withdrawn',
      actor: options.actor,
    })
  })
