import { hashOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { endingCustomerSessions } from '../sellers/seller-changes.js'
import { issueRefreshToken, type CustomerGrant, type SessionTerms } from './customer-sessions.js'
import { lockRefreshToken, revokeRefreshFamily, useRefreshToken } from './customer-tokens.repo.js'
import { findCustomerById } from './customers.repo.js'

export type RefreshCustomerSessionOptions = SessionTerms & { refreshToken: string }

/**
 * Rotates a refresh token: the presented one is used up and its successor, in the same family,
 * is answered. A token that was already used means it leaked or was replayed: every token of
 * its family is revoked (also the successor just issued to whoever used it first, and every access
 * token of that session), and the customer signs in again. Concurrent calls with one token are the same case: exactly one gets
 * a new pair, and the family is then revoked. Unknown, used, revoked, expired or another
 * seller's token: 401 `invalid_token`.
 */
export async function refreshCustomerSession(db: Db, options: RefreshCustomerSessionOptions): Promise<CustomerGrant> {
  const { sellerId } = options
  const tokenHash = hashOpaqueToken(options.tokenHmac, options.refreshToken)
  // The revocation must commit, so the transaction answers a failure instead of throwing it.
  const grant = await endingCustomerSessions(db, async (tx, announce): Promise<CustomerGrant | null> => {
    const used = await useRefreshToken(tx, sellerId, tokenHash)
    if (used) {
      const customer = await findCustomerById(tx, sellerId, used.customerId)
      if (!customer) return null
      const issued = await issueRefreshToken(tx, {
        sellerId,
        customerId: customer.id,
        familyId: used.familyId,
        tokenHmac: options.tokenHmac,
        ttlSeconds: options.refreshTtlSeconds,
      })
      return { customer, ...issued }
    }
    const known = await lockRefreshToken(tx, sellerId, tokenHash)
    if (known?.usedAt) {
      const revoked = await revokeRefreshFamily(tx, known.familyId)
      if (revoked > 0) {
        await announce(known.customerId)
        await recordAudit(
          tx,
          { type: 'system', traceId: options.traceId ?? null },
          {
            action: 'stf.customer.refresh_token_reused',
            target: { type: 'customer', id: known.customerId },
            sellerId,
            data: { family_id: known.familyId, revoked },
          },
        )
      }
    }
    return null
  })
  if (!grant) throw new AppError('invalid_token')
  return grant
}
