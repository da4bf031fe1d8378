import { randomBytes } from 'node:crypto'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** RFC 4648 base32 without padding: no lookalike case, easy to read out or type from a ticket. */
export function base32(bytes: Uint8Array): string {
  let out = ''
  let bits = 0
  let value = 0
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
    value &= (1 << bits) - 1
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31]
  return out
}

/** A ticket's identifier: 128 random bits, 26 base32 characters. */
export const newTicketIdentifier = () => base32(randomBytes(16))

/** The bytes of an RFC 4648 base32 string without padding (upper case), or null if it is not one. */
export function fromBase32(text: string): Buffer | null {
  const out: number[] = []
  let bits = 0
  let value = 0
  for (const char of text) {
    const digit = ALPHABET.indexOf(char)
    if (digit < 0) return null
    value = (value << 5) | digit
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255)
      bits -= 8
    }
    value &= (1 << bits) - 1
  }
  return Buffer.from(out)
}
