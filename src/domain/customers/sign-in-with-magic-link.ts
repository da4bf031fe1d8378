import { hashOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { customerActor, issueRefreshToken, type CustomerGrant } from './customer-sessions.js'
import { consumeOneTimeToken } from './customer-tokens.repo.js'
import { markEmailVerified } from './customers.repo.js'

export type SignInWithMagicLinkOptions = {
  sellerId: string
  token: string
  tokenHmac: Buffer
  refreshTtlSeconds: number
  traceId?: string
}

/**
 * Consumes a magic-link token (once, even under concurrent calls) and starts a session, as a
 * password login does. Opening the link proves control of the inbox, so a not yet confirmed
 * address becomes confirmed. Unknown, used, expired or another seller's token: 401 `invalid_token`.
 */
export const signInWithMagicLink = (db: Db, options: SignInWithMagicLinkOptions) =>
  db.transaction(async (tx): Promise<CustomerGrant> => {
    const { sellerId } = options
    const consumed = await consumeOneTimeToken(tx, sellerId, 'magic_link', hashOpaqueToken(options.tokenHmac, options.token))
    if (!consumed) throw new AppError('invalid_token')
    const customer = await markEmailVerified(tx, consumed.customerId)
    const refreshToken = await issueRefreshToken(tx, {
      sellerId,
      customerId: customer.id,
      tokenHmac: options.tokenHmac,
      ttlSeconds: options.refreshTtlSeconds,
    })
    await recordAudit(tx, customerActor(customer.id, options.traceId), {
      action: 'stf.customer.signed_in',
      target: { type: 'customer', id: customer.id },
      sellerId,
      data: { method: 'magic_link' },
    })
    return { customer, refreshToken }
  })
