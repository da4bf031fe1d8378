import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { insertRefreshToken, insertSession, pruneUserSessions, rememberAddress } from './sessions.repo.js'
import { findUserById, withRoles, type StaffUser } from './users.repo.js'

export type StartStaffSessionOptions = {
  userId: string
  tokenHmac: Buffer
  refreshTtlSeconds: number
  /** The keyed hash of the client address of a password login, remembered as one its owner uses. */
  addressHash?: string | undefined
}

/** A new or refreshed session: the refresh token is shown here once and stored only hashed. */
export type StaffSessionGrant = { sessionId: string; refreshToken: string; user: StaffUser }

/**
 * Opens a session (a new refresh-token family) for a user whose identity is already
 * established; login calls it after checking the password.
 */
export const startStaffSession = (db: Db, { userId, tokenHmac, refreshTtlSeconds, addressHash }: StartStaffSessionOptions): Promise<StaffSessionGrant> =>
  db.transaction(async (tx) => {
    const user = await findUserById(tx, userId)
    if (!user) throw new AppError('invalid_credentials')
    await pruneUserSessions(tx, user.id)
    if (addressHash) await rememberAddress(tx, user.id, addressHash)
    const sessionId = await insertSession(tx, user.id)
    const refreshToken = newOpaqueToken()
    await insertRefreshToken(tx, { sessionId, tokenHash: hashOpaqueToken(tokenHmac, refreshToken), ttlSeconds: refreshTtlSeconds })
    const [withRoleNames] = await withRoles(tx, [user])
    return { sessionId, refreshToken, user: withRoleNames! }
  })
