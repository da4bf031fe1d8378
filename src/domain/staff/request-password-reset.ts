import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { enqueueEmail } from '../../platform/mail/outbox.repo.js'
import { insertPasswordReset, deleteUserPasswordResets } from './password-resets.repo.js'
import { passwordResetLink } from './staff-rules.js'
import { findUserByEmail } from './users.repo.js'

export type RequestPasswordResetOptions = { email: string; tokenHmac: Buffer; ttlSeconds: number; resetUrl: string }

/**
 * Emails a single-use reset link to the user of that email, if there is one; otherwise does
 * nothing. The caller answers the same either way, so the answer reveals no account. A new
 * link retires the earlier ones. The email is queued in the same transaction.
 */
export async function requestPasswordReset(db: Db, { email, tokenHmac, ttlSeconds, resetUrl }: RequestPasswordResetOptions): Promise<void> {
  const user = await findUserByEmail(db, email)
  if (!user) return
  const token = newOpaqueToken()
  const minutes = Math.max(1, Math.round(ttlSeconds / 60))
  await db.transaction(async (tx) => {
    await deleteUserPasswordResets(tx, user.id)
    await insertPasswordReset(tx, { userId: user.id, tokenHash: hashOpaqueToken(tokenHmac, token), ttlSeconds })
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
  })
}
