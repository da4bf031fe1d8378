import { randomBytes } from 'node:crypto'
import { hashOpaqueToken } from '../../platform/auth/opaque-token.js'
import { base32 } from '../orders/ticket-identifier.js'

/** How long a pairing code works. */
export const PAIRING_TTL_MS = 24 * 60 * 60 * 1000

/**
 * A new pairing code: 100 random bits in base32 (typed from a printout as easily as read from a
 * QR), in five groups of four. At 10 tries per minute per address, guessing one of a thousand
 * live codes would take longer than the universe has existed.
 */
export function newPairingCode(): string {
  return base32(randomBytes(13)).slice(0, 20).match(/.{4}/g)!.join('-')
}

/** The keyed hash a pairing code is stored and looked up by, whatever its case, spaces or dashes. */
export const hashPairingCode = (key: Buffer, code: string) => hashOpaqueToken(key, `pairing:${code.toUpperCase().replace(/[^A-Z2-7]/g, '')}`)
