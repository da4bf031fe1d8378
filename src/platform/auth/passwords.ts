import argon2 from 'argon2'

/**
 * argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane), about 40 ms of one core here.
 * argon2 runs on the libuv pool, so hashing never blocks the event loop; never await it
 * inside a database transaction.
 */
export const PASSWORD_HASH_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 128

export const hashPassword = (password: string) => argon2.hash(password, PASSWORD_HASH_OPTIONS)

// Verified against when the account does not exist, so that an unknown email costs the
// same work as a wrong password and timing reveals nothing.
let dummyHash: Promise<string> | undefined

/**
 * Checks a password against a stored hash, or against a dummy hash when there is none.
 * Always does one full argon2id verification.
 */
export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  dummyHash ??= hashPassword('dummy-password-for-constant-work')
  const hash = storedHash ?? (await dummyHash)
  try {
    const ok = await argon2.verify(hash, password)
    return ok && Boolean(storedHash)
  } catch {
    return false
  }
}

/** True when a stored hash is weaker than today's parameters and should be replaced at login. */
export function passwordNeedsRehash(storedHash: string): boolean {
  try {
    return argon2.needsRehash(storedHash, PASSWORD_HASH_OPTIONS)
  } catch {
    return true
  }
}
