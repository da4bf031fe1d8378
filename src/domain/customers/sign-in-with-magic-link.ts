import { hashOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { endingCustomerSessions } from '../sellers/seller-changes.js'
import { endCustomerSessions, startCustomerSession, type CustomerGrant, type SessionTerms } from './customer-sessions.js'
import { consumeOneTimeToken } from './customer-tokens.repo.js'
import { confirmEmail } from './customers.repo.js'
import { joinGuestOrders } from '../orders/join-guest-orders.js'

export type SignInWithMagicLinkOptions = SessionTerms & { token: string }

/**
 * Consumes a magic-link token (once, even under concurrent calls) and starts a session, as a
 * password login does. Opening the link proves control of the inbox, so a not yet confirmed
 * address becomes confirmed. That first proof also ends every earlier session and drops the
 * password set at registration: whoever registered the address may not have owned it (the
 * owner sets a password through a reset when it wants one). Unknown, used, expired or another
 * seller's token: 401 `invalid_token`.
 */
export const signInWithMagicLink = (db: Db, options: SignInWithMagicLinkOptions) =>
  endingCustomerSessions(db, async (tx, announce): Promise<CustomerGrant> => {
    const consumed = await consumeOneTimeToken(tx, options.sellerId, 'magic_link', hashOpaqueToken(options.tokenHmac, options.token))
    if (!consumed) throw new AppError('invalid_token')
    const { customer, firstProof } = await confirmEmail(tx, consumed.customerId, { clearPassword: true })
    const revoked = firstProof ? await endCustomerSessions(tx, announce, customer) : 0
    await joinGuestOrders(tx, customer, options.traceId)
    return startCustomerSession(tx, {
      customer,
      method: 'magic_link',
      tokenHmac: options.tokenHmac,
      ttlSeconds: options.refreshTtlSeconds,
      traceId: options.traceId,
      ...(firstProof ? { auditData: { first_proof_of_inbox: true, password_cleared: true, revoked_refresh_tokens: revoked } } : {}),
    })
  })
