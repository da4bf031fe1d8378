import { hashPassword, passwordNeedsRehash, verifyPassword } from '../../platform/auth/passwords.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { startCustomerSession, type CustomerGrant } from './customer-sessions.js'
import { findCustomerByEmail, lockPasswordHash, replacePasswordHash } from './customers.repo.js'

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
  const customer = await findCustomerByEmail(db, options.sellerId, options.email)
  const valid = await verifyPassword(customer?.passwordHash ?? null, options.password)
  if (!customer || !valid) throw new AppError('invalid_credentials')
  const rehashed = passwordNeedsRehash(customer.passwordHash) ? await hashPassword(options.password) : null
  return db.transaction(async (tx) => {
    // The password may have been reset while argon2 ran: the new session must not outlive that.
    const unchanged = rehashed
      ? await replacePasswordHash(tx, customer.id, customer.passwordHash, rehashed)
      : await lockPasswordHash(tx, customer.id, customer.passwordHash)
    if (!unchanged) throw new AppError('invalid_credentials')
    return startCustomerSession(tx, {
      customer,
      method: 'password',
      tokenHmac: options.tokenHmac,
      ttlSeconds: options.refreshTtlSeconds,
      traceId: options.traceId,
      ...(rehashed ? { auditData: { password_rehashed: true } } : {}),
    })
  })
}
