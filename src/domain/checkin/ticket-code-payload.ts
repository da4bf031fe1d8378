import { base32, fromBase32 } from '../orders/ticket-identifier.js'

/** What a ticket's signed code says (docs/door.md): enough for a gate to judge it offline. */
export type TicketClaims = {
  /** The ticket's identifier. */
  tid: string
  sid: string
  eid: string
  inv: string
  /** The inventory's date when the code was signed, `YYYY-MM-DD`. */
  d: string
  v: string | null
  /** Reserved seating: the seat's zone, row and number (absent: unseated). */
  s?: SeatClaim
  /** The ticket's `code_version` when above 0 (a holder change, a re-issue, a retired key), modulo 256 (`codeVersionClaim`). */
  n?: number
}

/** What a code says of a ticket's `code_version`: one byte in the compact layout, so modulo 256; absent for 0. */
export const codeVersionClaim = (codeVersion: number): number | undefined => (codeVersion > 0 ? codeVersion % 256 : undefined)

/** Whether a code's claims were signed for the ticket's current `code_version` (an older code is refused). */
export const isCurrentCode = (claims: Pick<TicketClaims, 'n'>, codeVersion: number): boolean => (claims.n ?? 0) === codeVersion % 256

/** A seat as a code names it: `[zone, row, number]`. */
export type SeatClaim = [zone: string, row: string, number: string]

/** The compact layout's first byte. A JSON payload starts with `{` (0x7b) instead. */
export const COMPACT_VERSION = 1
/** The most UTF-8 bytes of a variant's name a compact code carries; a longer name is cut and ends in `…`. */
export const MAX_VARIANT_BYTES = 34
/** The most UTF-8 bytes of a seat a compact code carries, separators included (a longer one is cut: `compactSeat`). */
export const MAX_SEAT_BYTES = 24
/** Between the seat's zone, row and number in a compact code: the unit separator, which no name shows. */
export const SEAT_SEPARATOR = '\u001f'
/** What a compact code keeps at most of a seat's row and of its number; the zone takes the rest. */
const MAX_SEAT_PART_BYTES = 8

const EPOCH_DAY = Date.UTC(2000, 0, 1) / 86_400_000
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ELLIPSIS = '…'

const uuidBytes = (id: string) => Buffer.from(id.replaceAll('-', ''), 'hex')
const uuidOf = (bytes: Buffer) => bytes.toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5')

/** The longest start of `text` within `max` UTF-8 bytes that ends on a whole character, and `…` when cut. */
export function fitUtf8(text: string, max: number): Buffer {
  const whole = Buffer.from(text, 'utf8')
  if (whole.length <= max) return whole
  let cut = ''
  for (const char of text) {
    if (Buffer.byteLength(cut + char + ELLIPSIS) > max) break
    cut += char
  }
  return Buffer.from(cut + ELLIPSIS, 'utf8')
}

/**
 * A seat as a compact code carries it: zone, row and number in UTF-8, separated by
 * SEAT_SEPARATOR, at most MAX_SEAT_BYTES in all. The number and the row keep up to 8 bytes each and
 * the zone what is left (at least 6), each cut at a whole character with `…` when longer: the
 * gate's feed and its answers give the whole seat, the code only what a gate offline can show.
 */
export function compactSeat(seat: SeatClaim): Buffer {
  const clean = seat.map((part) => part.replaceAll(SEAT_SEPARATOR, ' '))
  const number = fitUtf8(clean[2]!, MAX_SEAT_PART_BYTES)
  const row = fitUtf8(clean[1]!, MAX_SEAT_PART_BYTES)
  const zone = fitUtf8(clean[0]!, MAX_SEAT_BYTES - 2 - number.length - row.length)
  const separator = Buffer.from(SEAT_SEPARATOR)
  return Buffer.concat([zone, separator, row, separator, number])
}

/** The seat of a compact code's bytes (`compactSeat`), or null when it is not three parts. */
function readSeat(text: string): SeatClaim | null {
  const parts = text.split(SEAT_SEPARATOR)
  return parts.length === 3 ? (parts as SeatClaim) : null
}

/**
 * The payload of a code in the compact layout, or null when a ticket does not fit it (an
 * identifier not of 128 bits, a date outside 2000..2179): such a ticket is signed in the JSON
 * layout.
 *
 * Layout (big-endian), 53 bytes, the two strings and n, at most 112 bytes (150 base64url characters):
 *
 *   0      version, 1
 *   1..16  tid: the identifier's 128 bits (26 base32 characters)
 *   17..32 eid: event id (UUID bytes)
 *   33..48 inv: inventory id
 *   49..50 d: days since 2000-01-01
 *   51     length of v in bytes (0: no variant), then v in UTF-8 (at most 34 bytes, cut with `…`)
 *   ..     length of s in bytes (0: no seat), then s: zone, row and number in UTF-8, separated
 *          by 0x1F, at most 24 bytes in all (`compactSeat`)
 *   ..     n: the code's version modulo 256, one byte, present only when the ticket's
 *          `code_version` is above 0 (so codes of version 0 read as they always did)
 *
 * The seller (`sid`) is not repeated: the key that signs the code is the seller's own, and a
 * gate verifies with its seller's keys only.
 */
export function compactPayload(claims: TicketClaims): Buffer | null {
  const tid = fromBase32(claims.tid)
  if (tid?.length !== 16 || base32(tid) !== claims.tid) return null
  if (!UUID.test(claims.eid) || !UUID.test(claims.inv)) return null
  const days = Date.parse(`${claims.d}T00:00:00Z`) / 86_400_000 - EPOCH_DAY
  if (!Number.isInteger(days) || days < 0 || days > 0xffff) return null
  const seat = claims.s ? compactSeat(claims.s) : Buffer.alloc(0)
  const variant = claims.v === null ? Buffer.alloc(0) : fitUtf8(claims.v, MAX_VARIANT_BYTES)
  const date = Buffer.alloc(2)
  date.writeUInt16BE(days)
  return Buffer.concat([
    Buffer.from([COMPACT_VERSION]),
    tid,
    uuidBytes(claims.eid),
    uuidBytes(claims.inv),
    date,
    Buffer.from([variant.length]),
    variant,
    Buffer.from([seat.length]),
    seat,
    claims.n === undefined ? Buffer.alloc(0) : Buffer.from([claims.n & 0xff]),
  ])
}

/** The payload in the JSON layout, as codes were signed before the compact one (and by a legacy key still). */
export const jsonPayload = (claims: TicketClaims): Buffer =>
  Buffer.from(
    JSON.stringify({
      tid: claims.tid,
      sid: claims.sid,
      eid: claims.eid,
      inv: claims.inv,
      d: claims.d,
      v: claims.v,
      ...(claims.s ? { s: claims.s } : {}),
      ...(claims.n === undefined ? {} : { n: claims.n }),
    }),
  )

const decoder = new TextDecoder('utf-8', { fatal: true })

/** The claims of a verified payload of either layout, for the seller whose key verified it; null if it is neither. */
export function readPayload(payload: Uint8Array, sellerId: string): TicketClaims | null {
  const bytes = Buffer.from(payload)
  if (bytes[0] === COMPACT_VERSION) return readCompact(bytes, sellerId)
  const claims = JSON.parse(decoder.decode(bytes)) as Partial<TicketClaims>
  if (claims.sid !== sellerId || typeof claims.tid !== 'string') return null
  return claims as TicketClaims
}

function readCompact(bytes: Buffer, sellerId: string): TicketClaims | null {
  if (bytes.length < 53) return null
  const date = new Date((EPOCH_DAY + bytes.readUInt16BE(49)) * 86_400_000).toISOString().slice(0, 10)
  const variantEnd = 52 + bytes[51]!
  if (variantEnd + 1 > bytes.length) return null
  const seatEnd = variantEnd + 1 + bytes[variantEnd]!
  if (seatEnd !== bytes.length && seatEnd + 1 !== bytes.length) return null
  const variant = decoder.decode(bytes.subarray(52, variantEnd))
  const seatText = decoder.decode(bytes.subarray(variantEnd + 1, seatEnd))
  const seat = seatText === '' ? null : readSeat(seatText)
  if (seatText !== '' && !seat) return null
  return {
    tid: base32(bytes.subarray(1, 17)),
    sid: sellerId,
    eid: uuidOf(bytes.subarray(17, 33)),
    inv: uuidOf(bytes.subarray(33, 49)),
    d: date,
    v: variant === '' ? null : variant,
    ...(seat ? { s: seat } : {}),
    ...(seatEnd < bytes.length ? { n: bytes[seatEnd]! } : {}),
  }
}
