import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { consumeRefreshToken, findRefreshToken, insertRefreshToken, revokeSession } from './sessions.repo.js'
import type { StaffSessionGrant } from './start-staff-session.js'
import { findUserById, withRoles } from './users.repo.js'

export type RefreshStaffSessionOptions = { refreshToken: string; tokenHmac: Buffer; refreshTtlSeconds: number; traceId?: string }

/**
 * Exchanges a refresh token for a new one of the same session (rotation). Each refresh
 * token works once: presenting one that was already used revokes its whole session, the
 * family descended from one login, since either its owner or a thief holds a copy.
 * Unknown, used, expired or revoked tokens answer `invalid_token`.
 */
export async function refreshStaffSession(
  db: Db,
  { refreshToken, tokenHmac, refreshTtlSeconds, traceId }: RefreshStaffSessionOptions,
): Promise<StaffSessionGrant> {
  const tokenHash = hashOpaqueToken(tokenHmac, refreshToken)
  const grant = await db.transaction(async (tx) => {
    const consumed = await consumeRefreshToken(tx, tokenHash)
    if (!consumed) {
      const known = await findRefreshToken(tx, tokenHash)
      if (known?.usedAt && (await revokeSession(tx, known.sessionId, 'refresh_token_reuse'))) {
        await recordAudit(
          tx,
          { type: 'system', traceId: traceId ?? null },
          {
            action: 'iam.session.revoked',
            target: { type: 'staff_user', id: known.userId },
            data: { session_id: known.sessionId, reason: 'refresh_token_reuse' },
          },
        )
      }
      return undefined
    }
    const user = await findUserById(tx, consumed.userId)
    if (!user) return undefined
    const next = newOpaqueToken()
    await insertRefreshToken(tx, { sessionId: consumed.sessionId, tokenHash: hashOpaqueToken(tokenHmac, next), ttlSeconds: refreshTtlSeconds })
    const [withRoleNames] = await withRoles(tx, [user])
    return { sessionId: consumed.sessionId, refreshToken: next, user: withRoleNames! }
  })
  // Thrown after the transaction so that a reuse revocation is committed, not rolled back.
  if (!grant) throw new AppError('invalid_token')
  return grant
}
