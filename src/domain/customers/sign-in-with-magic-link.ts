import { hashOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { startCustomerSession, type CustomerGrant } from './customer-sessions.js'
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
    const consumed = await consumeOneTimeToken(tx, options.sellerId, 'magic_link', hashOpaqueToken(options.tokenHmac, options.token))
    if (!consumed) throw new AppError('invalid_token')
    const customer = await markEmailVerified(tx, consumed.customerId)
    return startCustomerSession(tx, {
      customer,
      method: 'magic_link',
      tokenHmac: options.tokenHmac,
      ttlSeconds: options.refreshTtlSeconds,
      traceId: options.traceId,
    })
  })
