import { randomUUID } from 'node:crypto'
import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { insertRefreshToken } from './customer-tokens.repo.js'
import type { CustomerRow } from './customers.repo.js'

/**
 * What a sign-in or a refresh grants: the customer and a new refresh token, in clear this once.
 * The HTTP layer adds the access token (a JWT it signs).
 */
export type CustomerGrant = { customer: CustomerRow; refreshToken: string }

export type RefreshTokenOptions = {
  sellerId: string
  customerId: string
  /** The family of the token it replaces; a new sign-in starts a new family. */
  familyId?: string
  tokenHmac: Buffer
  ttlSeconds: number
}

/** Stores a new refresh token (its hash only) and answers it. Pass the transaction of the sign-in or refresh. */
export async function issueRefreshToken(tx: Db, options: RefreshTokenOptions): Promise<string> {
  const token = newOpaqueToken()
  await insertRefreshToken(tx, {
    sellerId: options.sellerId,
    customerId: options.customerId,
    familyId: options.familyId ?? randomUUID(),
    tokenHash: hashOpaqueToken(options.tokenHmac, token),
    ttlSeconds: options.ttlSeconds,
  })
  return token
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
  const refreshToken = await issueRefreshToken(tx, {
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
  return { customer, refreshToken }
}
