import type { Db } from '../../platform/db/database.js'
import { verificationEmail, type EmailSeller } from './customer-emails.js'
import { emailOneTimeLink } from './email-one-time-link.js'

export type ResendVerificationEmailOptions = {
  seller: EmailSeller & { id: string }
  email: string
  tokenHmac: Buffer
  verifyEmailTtlSeconds: number
  traceId?: string
}

/**
 * Emails a new verification link when the seller has a customer with this email whose address is
 * not confirmed yet; the earlier links stop working. Reveals nothing either way.
 */
export const resendVerificationEmail = (db: Db, options: ResendVerificationEmailOptions) =>
  emailOneTimeLink(db, {
    seller: options.seller,
    email: options.email,
    purpose: 'verify_email',
    ttlSeconds: options.verifyEmailTtlSeconds,
    tokenHmac: options.tokenHmac,
    compose: verificationEmail,
    auditAction: 'stf.customer.verification_email_requested',
    ...(options.traceId ? { traceId: options.traceId } : {}),
  })
