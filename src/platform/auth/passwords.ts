import argon2 from 'argon2'
import { COMMON_PASSWORDS } from './common-passwords.js'

/**
 * argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane), about 40 ms of one core here.
 * argon2 runs on the libuv pool, so hashing never blocks the event loop; never await it
 * inside a database transaction.
 */
export const PASSWORD_HASH_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 128

const COMMON = new Set(COMMON_PASSWORDS.map((p) => p.toLowerCase()))

/**
 * True for one of the 3,000 most common passwords, in any case: the first guesses of every
 * attacker, refused wherever a password is chosen (registration, creation, reset, change).
 */
export const isCommonPassword = (password: string) => COMMON.has(password.toLowerCase())

export const COMMON_PASSWORD_MESSAGE = 'is one of the 3,000 most common passwords, which attackers try first: choose another'

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

const PHC_ARGON2 = /^\$(argon2id|argon2i|argon2d)\$v=(\d+)\$m=(\d+),t=(\d+),p=(\d+)\$/

/**
 * True when a stored hash is weaker than today's parameters and should be replaced at login:
 * another argon2 variant than argon2id, an older version, less memory or fewer passes (or not
 * an argon2 hash at all). A hash made with more memory or more passes is kept: replacing it
 * would weaken it. (argon2's own `needsRehash` ignores the variant and replaces any hash whose
 * parameters differ, stronger ones included.)
 */
export function passwordNeedsRehash(storedHash: string): boolean {
  const match = PHC_ARGON2.exec(storedHash)
  if (!match) return true
  const [, type, version, m, t, p] = match
  return (
    type !== 'argon2id' ||
    Number(version) < 0x13 ||
    Number(m) < PASSWORD_HASH_OPTIONS.memoryCost ||
    Number(t) < PASSWORD_HASH_OPTIONS.timeCost ||
    Number(p) < PASSWORD_HASH_OPTIONS.parallelism
  )
}
