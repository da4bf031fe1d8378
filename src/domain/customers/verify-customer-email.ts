import { hashOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { endingCustomerSessions } from '../sellers/seller-changes.js'
import { customerActor, endCustomerSessions } from './customer-sessions.js'
import { consumeOneTimeToken } from './customer-tokens.repo.js'
import { confirmEmail } from './customers.repo.js'
import { joinGuestOrders } from '../orders/join-guest-orders.js'

export type VerifyCustomerEmailOptions = { sellerId: string; token: string; tokenHmac: Buffer; traceId?: string }

/**
 * Consumes a verification token (once) and marks the address confirmed. The first proof of the
 * inbox ends every session opened before it (they may be a squatter's, who registered the
 * address before its owner). Unknown, used, expired or another seller's token: 401 `invalid_token`.
 */
export const verifyCustomerEmail = (db: Db, options: VerifyCustomerEmailOptions) =>
  endingCustomerSessions(db, async (tx, announce) => {
    const { sellerId } = options
    const consumed = await consumeOneTimeToken(tx, sellerId, 'verify_email', hashOpaqueToken(options.tokenHmac, options.token))
    if (!consumed) throw new AppError('invalid_token')
    const { customer, firstProof } = await confirmEmail(tx, consumed.customerId, { clearPassword: false })
    const revoked = firstProof ? await endCustomerSessions(tx, announce, customer) : 0
    await joinGuestOrders(tx, customer, options.traceId)
    await recordAudit(tx, customerActor(customer.id, options.traceId), {
      action: 'stf.customer.email_verified',
      target: { type: 'customer', id: customer.id },
      sellerId,
      data: { revoked_refresh_tokens: revoked },
    })
    return customer
  })
