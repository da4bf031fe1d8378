import { hashOpaqueToken } from '../../platform/auth/opaque-token.js'
import { hashPassword } from '../../platform/auth/passwords.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { consumePasswordReset, deleteUserPasswordResets } from './password-resets.repo.js'
import { revokeUserSessions } from './sessions.repo.js'
import { updateUserRow } from './users.repo.js'

export type ResetPasswordOptions = { token: string; password: string; tokenHmac: Buffer; traceId?: string }

/**
 * Sets a new password with a reset token. The token works once, also under concurrent
 * calls (one conditional UPDATE); unknown, used or expired tokens answer `invalid_token`.
 * Every session of the user is revoked, so whoever held its tokens is signed out, and
 * every other reset link of the user stops working.
 */
export async function resetPassword(db: Db, { token, password, tokenHmac, traceId }: ResetPasswordOptions): Promise<void> {
  // argon2 runs before the transaction, never inside it.
  const passwordHash = await hashPassword(password)
  await db.transaction(async (tx) => {
    const userId = await consumePasswordReset(tx, hashOpaqueToken(tokenHmac, token))
    if (!userId) throw new AppError('invalid_token')
    await updateUserRow(tx, userId, { passwordHash })
    await deleteUserPasswordResets(tx, userId)
    await revokeUserSessions(tx, userId, 'password_changed')
    await recordAudit(
      tx,
      { type: 'staff', id: userId, traceId: traceId ?? null },
      { action: 'iam.user.password_reset', target: { type: 'staff_user', id: userId } },
    )
  })
}
