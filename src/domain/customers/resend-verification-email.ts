import type { Db } from '../../platform/db/database.js'
import { verificationEmail, type CustomerEmailRequest } from './customer-emails.js'
import { emailOneTimeLink } from './email-one-time-link.js'

export type ResendVerificationEmailOptions = CustomerEmailRequest & { verifyEmailTtlSeconds: number }

/**
 * Emails a new verification link when the seller has a customer with this email whose address is
 * not confirmed yet; the earlier links stop working. Reveals nothing either way.
 */
export const resendVerificationEmail = (db: Db, { verifyEmailTtlSeconds, ...request }: ResendVerificationEmailOptions) =>
  emailOneTimeLink(db, {
    ...request,
    purpose: 'verify_email',
    ttlSeconds: verifyEmailTtlSeconds,
    compose: verificationEmail,
    auditAction: 'stf.customer.verification_email_requested',
  })
