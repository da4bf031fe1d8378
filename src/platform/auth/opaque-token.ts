import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * Opaque secrets (refresh, reset, magic-link, verification tokens; API keys) are random,
 * high-entropy strings. Only their keyed hash is stored: HMAC-SHA-256 under a server key,
 * fast enough for every request, useless to whoever reads the database without the key.
 */
export function newOpaqueToken(bytes = 32, prefix = ''): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`
}

export function hashOpaqueToken(key: Buffer, token: string): string {
  return createHmac('sha256', key).update(token).digest('base64url')
}

/** Constant-time comparison of two hashes of equal kind. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
