import { createHmac } from 'node:crypto'
import { hashOpaqueToken } from '../../platform/auth/opaque-token.js'
import { base32 } from '../orders/ticket-identifier.js'

/** How long a pairing code works. */
export const PAIRING_TTL_MS = 24 * 60 * 60 * 1000

/**
 * A device's pairing code: 100 bits of an HMAC of its id and its code's expiry under the server's
 * token key, in base32 (typed from a printout as easily as read from a QR), in five groups of four.
 * Only its hash is stored, yet the back office can show it again as a QR (`pairing.svg`) while it
 * is live: it is made again from the device's row, and no one without the key can make it. At 10
 * tries per minute per address, guessing one of a thousand live codes would take longer than the
 * universe has existed.
 */
export function pairingCodeOf(key: Buffer, deviceId: string, expiresAt: Date): string {
  const mac = createHmac('sha256', key).update(`pairing-code:${deviceId}:${expiresAt.getTime()}`).digest()
  return base32(mac.subarray(0, 13)).slice(0, 20).match(/.{4}/g)!.join('-')
}

/** Where a phone opens the scanner page already pairing (docs/door.md): the code after `#`, never sent to a server by a browser. */
export const pairingUrlOf = (publicBaseUrl: string, pairingCode: string) => `${publicBaseUrl}/scan/#pair=${pairingCode}`

/** The keyed hash a pairing code is stored and looked up by, whatever its case, spaces or dashes. */
export const hashPairingCode = (key: Buffer, code: string) => hashOpaqueToken(key, `pairing:${code.toUpperCase().replace(/[^A-Z2-7]/g, '')}`)
