import type { Db } from '../../platform/db/database.js'
import { passwordResetEmail, type EmailSeller } from './customer-emails.js'
import { emailOneTimeLink } from './email-one-time-link.js'

export type RequestPasswordResetOptions = {
  seller: EmailSeller & { id: string }
  email: string
  tokenHmac: Buffer
  resetTtlSeconds: number
  traceId?: string
}

/** Emails a password-reset link when the seller has a customer with this email; reveals nothing either way. */
export const requestPasswordReset = (db: Db, options: RequestPasswordResetOptions) =>
  emailOneTimeLink(db, {
    seller: options.seller,
    email: options.email,
    purpose: 'reset',
    ttlSeconds: options.resetTtlSeconds,
    tokenHmac: options.tokenHmac,
    compose: passwordResetEmail,
    auditAction: 'stf.customer.password_reset_requested',
    ...(options.traceId ? { traceId: options.traceId } : {}),
  })
