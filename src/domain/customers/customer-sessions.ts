import { randomUUID } from 'node:crypto'
import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import type { AuditActor } from '../audit/record-audit.js'
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
