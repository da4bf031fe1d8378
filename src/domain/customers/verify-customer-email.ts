import { hashOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { customerActor } from './customer-sessions.js'
import { consumeOneTimeToken } from './customer-tokens.repo.js'
import { markEmailVerified } from './customers.repo.js'

export type VerifyCustomerEmailOptions = { sellerId: string; token: string; tokenHmac: Buffer; traceId?: string }

/**
 * Consumes a verification token (once) and marks the address confirmed.
 * Unknown, used, expired or another seller's token: 401 `invalid_token`.
 */
export const verifyCustomerEmail = (db: Db, options: VerifyCustomerEmailOptions) =>
  db.transaction(async (tx) => {
    const { sellerId } = options
    const consumed = await consumeOneTimeToken(tx, sellerId, 'verify_email', hashOpaqueToken(options.tokenHmac, options.token))
    if (!consumed) throw new AppError('invalid_token')
    const customer = await markEmailVerified(tx, consumed.customerId)
    await recordAudit(tx, customerActor(customer.id, options.traceId), {
      action: 'stf.customer.email_verified',
      target: { type: 'customer', id: customer.id },
      sellerId,
    })
    return customer
  })
