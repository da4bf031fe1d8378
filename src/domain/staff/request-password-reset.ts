import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { enqueueEmail } from '../../platform/mail/outbox.repo.js'
import { recordAudit } from '../audit/record-audit.js'
import { deleteUserPasswordResets, findPasswordReset, insertPasswordReset } from './password-resets.repo.js'
import { passwordResetLink } from './staff-rules.js'
import { findUserByEmail } from './users.repo.js'

export type RequestPasswordResetOptions = { email: string; tokenHmac: Buffer; ttlSeconds: number; resetUrl: string; traceId?: string }

/**
 * Emails a single-use reset link to the user of that email, if there is one. The caller
 * answers the same either way, and the work is the same as far as it can be, so that neither
 * the answer nor its time reveals an account: both paths draw and hash a token, look the user
 * up, probe the token index and commit a write (the audit row; an unknown address that
 * committed nothing answered in a third of the time). Only an account gets the token row and
 * the email, queued in the same transaction. A new link retires the earlier ones.
 */
export async function requestPasswordReset(db: Db, { email, tokenHmac, ttlSeconds, resetUrl, traceId }: RequestPasswordResetOptions): Promise<void> {
  const token = newOpaqueToken()
  const tokenHash = hashOpaqueToken(tokenHmac, token)
  const minutes = Math.max(1, Math.round(ttlSeconds / 60))
  await db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, email)
    if (user) {
      await deleteUserPasswordResets(tx, user.id)
      await insertPasswordReset(tx, { userId: user.id, tokenHash, ttlSeconds })
      await enqueueEmail(tx, {
        kind: 'iam.password_reset',
        to: user.email,
        subject: 'Reset your Boxoffice password',
        text: [
          `Hello ${user.name},`,
          '',
          'Someone asked to reset the password of your Boxoffice staff account.',
          `To choose a new password, open this link within ${minutes} minutes (it works once):`,
          '',
          passwordResetLink(resetUrl, token),
          '',
          'If it was not you, ignore this email: your password stays as it is.',
        ].join('\n'),
      })
    } else {
      // Stands in for the token insert: the same unique-index probe.
      await findPasswordReset(tx, tokenHash)
    }
    await recordAudit(tx, user ? { type: 'staff', id: user.id, traceId: traceId ?? null } : { type: 'system', traceId: traceId ?? null }, {
      action: 'iam.user.password_recovery_requested',
      target: { type: 'staff_user', id: user?.id ?? null },
      data: { account: Boolean(user) },
    })
  })
}
