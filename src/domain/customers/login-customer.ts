import { hashPassword, passwordNeedsRehash, verifyPassword } from '../../platform/auth/passwords.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { startCustomerSession, type CustomerGrant, type SessionTerms } from './customer-sessions.js'
import { findCustomerByEmail, lockPasswordHash, replacePasswordHash } from './customers.repo.js'

export type LoginCustomerOptions = SessionTerms & {
  email: string
  password: string
  /** The seller's `login_requires_verified_email`: an unconfirmed address may not sign in with a password. */
  requireVerifiedEmail: boolean
}

/**
 * Exchanges email and password for a new session (refresh-token family). An unknown email, an
 * account without a password and a wrong password answer the same 401 `invalid_credentials`
 * after the same argon2 work. With the right password, an address never confirmed answers 403
 * `email_not_verified` when the seller requires it: whoever registered an email they do not own
 * cannot sign in with the password they chose. A hash made with weaker parameters than today's
 * is replaced on the way.
 */
export async function loginCustomer(db: Db, options: LoginCustomerOptions): Promise<CustomerGrant> {
  const customer = await findCustomerByEmail(db, options.sellerId, options.email)
  const valid = await verifyPassword(customer?.passwordHash ?? null, options.password)
  if (!customer?.passwordHash || !valid) throw new AppError('invalid_credentials')
  if (options.requireVerifiedEmail && !customer.emailVerifiedAt) throw new AppError('email_not_verified')
  const { passwordHash } = customer
  const rehashed = passwordNeedsRehash(passwordHash) ? await hashPassword(options.password) : null
  return db.transaction(async (tx) => {
    // The password may have been reset while argon2 ran: the new session must not outlive that.
    const unchanged = rehashed ? await replacePasswordHash(tx, customer.id, passwordHash, rehashed) : await lockPasswordHash(tx, customer.id, passwordHash)
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
