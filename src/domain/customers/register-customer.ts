import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import { hashPassword } from '../../platform/auth/passwords.js'
import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { enqueueEmail } from '../../platform/mail/outbox.repo.js'
import { recordAudit } from '../audit/record-audit.js'
import { verificationEmail, type CustomerEmailRequest } from './customer-emails.js'
import { customerActor } from './customer-sessions.js'
import { insertOneTimeToken } from './customer-tokens.repo.js'
import { insertCustomer, type CustomerRow } from './customers.repo.js'

export type RegisterCustomerOptions = CustomerEmailRequest & { password: string; firstName: string; lastName: string; verifyEmailTtlSeconds: number }

/**
 * Creates a customer of the seller and queues the address verification email in the same
 * transaction. 409 `email_taken` when the seller already has a customer with that email, in
 * any case (the unique index decides, so two concurrent registrations cannot both win).
 */
export async function registerCustomer(db: Db, options: RegisterCustomerOptions): Promise<CustomerRow> {
  const { seller } = options
  // argon2 runs before the transaction opens: nothing slow while it holds a connection.
  const passwordHash = await hashPassword(options.password)
  const token = newOpaqueToken()
  try {
    return await db.transaction(async (tx) => {
      const customer = await insertCustomer(tx, {
        sellerId: seller.id,
        email: options.email,
        passwordHash,
        firstName: options.firstName,
        lastName: options.lastName,
      })
      await insertOneTimeToken(tx, {
        sellerId: seller.id,
        customerId: customer.id,
        purpose: 'verify_email',
        tokenHash: hashOpaqueToken(options.tokenHmac, token),
        ttlSeconds: options.verifyEmailTtlSeconds,
      })
      await enqueueEmail(tx, verificationEmail(seller, customer, token, options.verifyEmailTtlSeconds))
      await recordAudit(tx, customerActor(customer.id, options.traceId), {
        action: 'stf.customer.registered',
        target: { type: 'customer', id: customer.id },
        sellerId: seller.id,
      })
      return customer
    })
  } catch (error) {
    if (isUniqueViolation(error, 'customers_seller_email_key')) throw new AppError('email_taken')
    throw error
  }
}
