import { randomUUID } from 'node:crypto'
import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { AnnounceSessionsEnded } from '../sellers/seller-changes.js'
import { insertRefreshToken, revokeCustomerRefreshTokens } from './customer-tokens.repo.js'
import type { CustomerRow } from './customers.repo.js'

/**
 * What a sign-in or a refresh grants: the customer, its session (the refresh-token family every
 * access token of it names) and a new refresh token, in clear this once. The HTTP layer adds
 * the access token (a JWT it signs).
 */
export type CustomerGrant = { customer: CustomerRow; sessionId: string; refreshToken: string }

/**
 * What every call that opens or renews a session takes besides the customer's proof: the seller,
 * the key that hashes the session's tokens, how long a refresh token lives and the trace id.
 */
export type SessionTerms = { sellerId: string; tokenHmac: Buffer; refreshTtlSeconds: number; traceId?: string }

export type RefreshTokenOptions = {
  sellerId: string
  customerId: string
  /** The family of the token it replaces; a new sign-in starts a new family. */
  familyId?: string
  tokenHmac: Buffer
  ttlSeconds: number
}

/** Stores a new refresh token (its hash only) and answers it with its family. Pass the transaction of the sign-in or refresh. */
export async function issueRefreshToken(tx: Db, options: RefreshTokenOptions): Promise<{ sessionId: string; refreshToken: string }> {
  const refreshToken = newOpaqueToken()
  const sessionId = options.familyId ?? randomUUID()
  await insertRefreshToken(tx, {
    sellerId: options.sellerId,
    customerId: options.customerId,
    familyId: sessionId,
    tokenHash: hashOpaqueToken(options.tokenHmac, refreshToken),
    ttlSeconds: options.ttlSeconds,
  })
  return { sessionId, refreshToken }
}

export const customerActor = (customerId: string, traceId?: string | null): AuditActor => ({ type: 'customer', id: customerId, traceId: traceId ?? null })

export type StartCustomerSessionOptions = {
  customer: CustomerRow
  /** How the customer proved who it is, for the audit log. */
  method: 'password' | 'magic_link'
  tokenHmac: Buffer
  ttlSeconds: number
  traceId?: string | undefined
  auditData?: Record<string, unknown>
}

/** A sign-in: a new refresh-token family for the customer, recorded in the audit log. Pass the transaction. */
export async function startCustomerSession(tx: Db, options: StartCustomerSessionOptions): Promise<CustomerGrant> {
  const { customer } = options
  const issued = await issueRefreshToken(tx, {
    sellerId: customer.sellerId,
    customerId: customer.id,
    tokenHmac: options.tokenHmac,
    ttlSeconds: options.ttlSeconds,
  })
  await recordAudit(tx, customerActor(customer.id, options.traceId), {
    action: 'stf.customer.signed_in',
    target: { type: 'customer', id: customer.id },
    sellerId: customer.sellerId,
    data: { method: options.method, ...options.auditData },
  })
  return { customer, ...issued }
}

/**
 * Ends every session of the customer: its refresh tokens are revoked, and with them the access
 * tokens that name those sessions, on every process (the change is announced to each one's
 * memory of live sessions, and the answer waits for them). Pass the transaction of the change
 * and its `announce` (`endingCustomerSessions`). Answers how many refresh tokens were revoked.
 */
export async function endCustomerSessions(tx: Db, announce: AnnounceSessionsEnded, customer: { id: string; sellerId: string }): Promise<number> {
  const revoked = await revokeCustomerRefreshTokens(tx, customer.id)
  if (revoked > 0) await announce(customer.id)
  return revoked
}
