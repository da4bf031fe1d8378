import type { Db } from '../../platform/db/database.js'
import { recordAudit } from '../audit/record-audit.js'
import { customerActor } from '../customers/customer-sessions.js'
import { joinGuestOrderRows } from './orders.repo.js'

/**
 * A customer proved it controls its inbox (a verification, a magic link, a password reset): the
 * seller's guest orders placed with that email join its account (docs/selling.md), in the same
 * transaction as the proof. Registration alone joins nothing, so whoever registers another's
 * address before its owner gets none of the owner's orders. Answers the orders joined.
 */
export async function joinGuestOrders(tx: Db, customer: { id: string; sellerId: string; email: string }, traceId?: string): Promise<string[]> {
  const joined = await joinGuestOrderRows(tx, customer)
  if (joined.length > 0) {
    await recordAudit(tx, customerActor(customer.id, traceId), {
      action: 'stf.customer.guest_orders_joined',
      target: { type: 'customer', id: customer.id },
      sellerId: customer.sellerId,
      data: { order_ids: joined },
    })
  }
  return joined
}
