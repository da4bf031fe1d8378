import { hashPassword, passwordNeedsRehash, verifyPassword } from '../../platform/auth/passwords.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { startStaffSession, type StaffSessionGrant } from './start-staff-session.js'
import { findUserByEmail, replacePasswordHash } from './users.repo.js'

export type LoginStaffOptions = {
  email: string
  password: string
  tokenHmac: Buffer
  refreshTtlSeconds: number
  /** The keyed hash of the client address, remembered on success (see `isKnownAddress`). */
  addressHash?: string
}

/**
 * Checks an email and password and opens a session. An unknown email costs the same
 * argon2 work as a wrong password and both answer `invalid_credentials`, so neither the
 * answer nor its timing tells whether an account exists. A hash made with weaker
 * parameters than today's is replaced on the way.
 */
export async function loginStaff(db: Db, { email, password, tokenHmac, refreshTtlSeconds, addressHash }: LoginStaffOptions): Promise<StaffSessionGrant> {
  const user = await findUserByEmail(db, email)
  const valid = await verifyPassword(user?.passwordHash ?? null, password)
  if (!user || !valid) throw new AppError('invalid_credentials')
  if (passwordNeedsRehash(user.passwordHash)) {
    await replacePasswordHash(db, user.id, user.passwordHash, await hashPassword(password))
  }
  return startStaffSession(db, { userId: user.id, tokenHmac, refreshTtlSeconds, addressHash })
}
