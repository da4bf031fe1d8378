import { createHash, createPrivateKey, createPublicKey, hkdfSync, type KeyObject, sign } from 'node:crypto'
import { compactVerify, decodeProtectedHeader } from 'jose'

/** What a ticket's signed code says (API.md 7.5): enough for a gate to judge it offline. */
export type TicketClaims = {
  /** The ticket's identifier. */
  tid: string
  sid: string
  eid: string
  inv: string
  /** The inventory's date, `YYYY-MM-DD`. */
  d: string
  v: string | null
}

/** A seller's public key as `GET /chk/v1/keys` publishes it. */
export type PublicJwk = { kid: string; kty: 'OKP'; crv: 'Ed25519'; x: string; active: boolean }

type SellerKey = { privateKey: KeyObject; publicKey: KeyObject; jwk: PublicJwk }

/** An Ed25519 private key in PKCS #8 DER is this fixed prefix and the 32-byte seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

/** How many sellers' keys one process keeps made (each is a few hundred bytes). */
const MAX_KEYS = 10_000

const decoder = new TextDecoder()

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url')

/** The JWK thumbprint (RFC 7638) of an Ed25519 public key: the members in lexical order, SHA-256. */
const thumbprint = (x: string) =>
  createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))
    .digest('base64url')

/**
 * Signs and verifies tickets' codes: compact JWS, EdDSA over Ed25519, one key per seller.
 *
 * No private key is stored anywhere. Each seller's key is derived, when first needed, from
 * `root` (itself derived from `JWT_SECRET`, secrets.ts) and the seller's id with HKDF, and kept
 * in this process's memory only. Ed25519 signatures are deterministic, so a ticket's code is
 * the same on every read and every replica. Changing `JWT_SECRET` changes every seller's key:
 * codes issued before no longer verify (gates refuse them as `invalid` until the holder shows
 * the code its ticket page now carries, or the gate types the identifier). Device tokens are
 * stored under a key derived from the same secret, so devices are paired anew (and fetch
 * `/chk/v1/keys` again), as sellers get new API keys.
 */
export function createTicketCodes(root: Buffer) {
  const keys = new Map<string, SellerKey>()

  function derive(sellerId: string): SellerKey {
    const seed = Buffer.from(hkdfSync('sha256', root, sellerId, 'ticket-code-ed25519', 32))
    const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' })
    const publicKey = createPublicKey(privateKey)
    const { x } = publicKey.export({ format: 'jwk' }) as { x: string }
    return { privateKey, publicKey, jwk: { kid: thumbprint(x), kty: 'OKP', crv: 'Ed25519', x, active: true } }
  }

  function keyOf(sellerId: string): SellerKey {
    let key = keys.get(sellerId)
    if (!key) {
      if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value as string)
      key = derive(sellerId)
      keys.set(sellerId, key)
    }
    return key
  }

  return {
    /** The seller's public keys, as JWKs. */
    publicKeys(sellerId: string): PublicJwk[] {
      return [keyOf(sellerId).jwk]
    },

    /**
     * The ticket's code: a compact JWS (RFC 7515) with `kid` in its header. Signed by Node's
     * crypto (OpenSSL's Ed25519), synchronously: codes are made while orders are written and
     * answered, inside transactions, where nothing but the database may be awaited, and it is a
     * quarter of the cost of a WebCrypto signature. Every code verifies with jose (tests).
     */
    sign(claims: TicketClaims): string {
      const key = keyOf(claims.sid)
      const header = base64url(JSON.stringify({ alg: 'EdDSA', kid: key.jwk.kid }))
      const payload = base64url(JSON.stringify({ tid: claims.tid, sid: claims.sid, eid: claims.eid, inv: claims.inv, d: claims.d, v: claims.v }))
      const signature = sign(null, Buffer.from(`${header}.${payload}`), key.privateKey)
      return `${header}.${payload}.${base64url(signature)}`
    },

    /**
     * The claims of a code signed with this seller's key, or null for anything else: malformed,
     * tampered, signed by another key, or of another seller.
     */
    async verify(sellerId: string, code: string): Promise<TicketClaims | null> {
      try {
        const key = keyOf(sellerId)
        if (decodeProtectedHeader(code).kid !== key.jwk.kid) return null
        const { payload } = await compactVerify(code, key.publicKey, { algorithms: ['EdDSA'] })
        const claims = JSON.parse(decoder.decode(payload)) as Partial<TicketClaims>
        if (claims.sid !== sellerId || typeof claims.tid !== 'string') return null
        return claims as TicketClaims
      } catch {
        return null
      }
    },
  }
}

export type TicketCodes = ReturnType<typeof createTicketCodes>

/** Whether a scanned code is shaped as a compact JWS (three base64url parts), not an identifier. */
export const looksSigned = (code: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(code)
