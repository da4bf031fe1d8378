import type { Db } from '../../platform/db/database.js'
import { passwordResetEmail, type CustomerEmailRequest } from './customer-emails.js'
import { emailOneTimeLink } from './email-one-time-link.js'

export type RequestPasswordResetOptions = CustomerEmailRequest & { resetTtlSeconds: number }

/** Emails a password-reset link when the seller has a customer with this email; reveals nothing either way. */
export const requestPasswordReset = (db: Db, { resetTtlSeconds, ...request }: RequestPasswordResetOptions) =>
  emailOneTimeLink(db, {
    ...request,
    purpose: 'reset',
    ttlSeconds: resetTtlSeconds,
    compose: passwordResetEmail,
    auditAction: 'stf.customer.password_reset_requested',
  })
