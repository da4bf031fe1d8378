/**
 * A ticket's signed code, verified in the browser: a compact JWS (EdDSA over Ed25519, `kid` in
 * its header) checked with the seller's key of that `kid` from GET /chk/v1/keys, then its
 * payload read. Two payload layouts verify: JSON (`{tid, sid, eid, inv, d, v, s?, n?}`, the first codes)
 * and the compact binary one (first byte 1). Everything that knows a code's shape is here.
 */

/** Between a seat's zone, row and number in a compact code. */
const SEAT_SEPARATOR = '\u001f'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const EPOCH_DAY = Date.UTC(2000, 0, 1) / 86_400_000
const utf8 = new TextDecoder('utf-8', { fatal: true })
const ascii = new TextEncoder()

/** Whether a scanned text is shaped as a signed code (three base64url parts), not an identifier. */
export const looksSigned = (text) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(text)

function fromBase64url(text) {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4)
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))
}

function base32(bytes) {
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

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const uuidOf = (bytes) => hex(bytes).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5')

/**
 * The claims `{tid, eid, inv, d, v, s?, n?}` of a verified payload of either layout, or null; `s`, a
 * seated ticket's seat: `[zone, row, number]`; `n`, the ticket's `code_version` modulo 256 when
 * the code was signed, absent for 0 (in the compact layout, one byte after the seat, only when
 * above 0: codes signed before it read as they always did).
 */
export function readPayload(bytes) {
  if (bytes[0] === 1) {
    if (bytes.length < 53) return null
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const variantEnd = 52 + bytes[51]
    if (variantEnd + 1 > bytes.length) return null
    const seatEnd = variantEnd + 1 + bytes[variantEnd]
    if (seatEnd !== bytes.length && seatEnd + 1 !== bytes.length) return null
    const variant = utf8.decode(bytes.subarray(52, variantEnd))
    const seatText = utf8.decode(bytes.subarray(variantEnd + 1, seatEnd))
    const seat = seatText === '' ? null : seatText.split(SEAT_SEPARATOR)
    if (seat && seat.length !== 3) return null
    return {
      tid: base32(bytes.subarray(1, 17)),
      eid: uuidOf(bytes.subarray(17, 33)),
      inv: uuidOf(bytes.subarray(33, 49)),
      d: new Date((EPOCH_DAY + view.getUint16(49)) * 86_400_000).toISOString().slice(0, 10),
      v: variant === '' ? null : variant,
      ...(seat ? { s: seat } : {}),
      ...(seatEnd < bytes.length ? { n: bytes[seatEnd] } : {}),
    }
  }
  const claims = JSON.parse(utf8.decode(bytes))
  return typeof claims?.tid === 'string' ? claims : null
}

let webCrypto
/** Whether this browser's Web Crypto verifies Ed25519 (Chromium 137+, Firefox 129+, Safari 17+). */
async function hasWebCryptoEd25519() {
  webCrypto ??= crypto.subtle
    .importKey('raw', new Uint8Array(32), { name: 'Ed25519' }, false, ['verify'])
    .then(() => true)
    .catch((error) => error?.name !== 'NotSupportedError')
  return webCrypto
}

const imported = new Map()

/** The Web Crypto key of a JWK, imported once. */
async function importedKey(jwk) {
  let key = imported.get(jwk.x)
  if (!key) {
    key = crypto.subtle.importKey('raw', fromBase64url(jwk.x), { name: 'Ed25519' }, false, ['verify'])
    imported.set(jwk.x, key)
  }
  return key
}

/**
 * Makes ready what the first scan would otherwise wait for (the probe of Web Crypto's Ed25519, each
 * key's import, or the fallback's module), so that the first code is answered as fast as the next.
 */
export async function prepareKeys(keys) {
  if (await hasWebCryptoEd25519()) await Promise.all(keys.map(importedKey))
  else await import('../vendor/noble-ed25519.js')
}

async function verifySignature(jwk, signature, message) {
  if (await hasWebCryptoEd25519()) return crypto.subtle.verify({ name: 'Ed25519' }, await importedKey(jwk), signature, message)
  const ed = await import('../vendor/noble-ed25519.js')
  return ed.verifyAsync(signature, message, fromBase64url(jwk.x))
}

/**
 * The claims of a code signed by one of `keys` (JWKs of GET /chk/v1/keys), or null: malformed,
 * tampered, or signed by a key the device does not hold.
 */
export async function verifyCode(code, keys) {
  try {
    if (!looksSigned(code)) return null
    const [header, payload, signature] = code.split('.')
    const { alg, kid } = JSON.parse(utf8.decode(fromBase64url(header)))
    const jwk = keys.find((key) => key.kid === kid)
    if (alg !== 'EdDSA' || !jwk) return null
    if (!(await verifySignature(jwk, fromBase64url(signature), ascii.encode(`${header}.${payload}`)))) return null
    return readPayload(fromBase64url(payload))
  } catch {
    return null
  }
}
