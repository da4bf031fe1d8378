import { hashPassword, passwordNeedsRehash, verifyPassword } from '../../platform/auth/passwords.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { customerActor, issueRefreshToken, type CustomerGrant } from './customer-sessions.js'
import { findCustomerByEmail, replacePasswordHash } from './customers.repo.js'

export type LoginCustomerOptions = {
  sellerId: string
  email: string
  password: string
  tokenHmac: Buffer
  refreshTtlSeconds: number
  traceId?: string
}

/**
 * Exchanges email and password for a new session (refresh-token family). An unknown email and
 * a wrong password answer the same 401 `invalid_credentials` after the same argon2 work.
 * A hash made with weaker parameters than today's is replaced on the way.
 */
export async function loginCustomer(db: Db, options: LoginCustomerOptions): Promise<CustomerGrant> {
  const { sellerId } = options
  const customer = await findCustomerByEmail(db, sellerId, options.email)
  const valid = await verifyPassword(customer?.passwordHash ?? null, options.password)
  if (!customer || !valid) throw new AppError('invalid_credentials')
  const rehashed = passwordNeedsRehash(customer.passwordHash) ? await hashPassword(options.password) : null
  return db.transaction(async (tx) => {
    if (rehashed) await replacePasswordHash(tx, customer.id, customer.passwordHash, rehashed)
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
      data: { method: 'password', ...(rehashed ? { password_rehashed: true } : {}) },
    })
    return { customer, refreshToken }
  })
}
