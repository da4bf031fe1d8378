import { createPublicKey, type KeyObject, randomUUID, sign } from 'node:crypto'
import { compactVerify, decodeProtectedHeader } from 'jose'
import type { Database, Db } from '../../platform/db/database.js'
import { compactPayload, jsonPayload, readPayload, type TicketClaims } from './ticket-code-payload.js'
import { KID_LENGTH, keyPairOf, legacyKeyPair, newKeyPair, openSeed, sealSeed, thumbprint, type KeyPair } from './ticket-key-material.js'
import {
  findActiveKeyRow,
  findLegacyKeyRow,
  hasLegacyTickets,
  insertKeyRows,
  keyRowsById,
  liveKeyRows,
  TICKET_KEYS_CHANNEL,
  type NewTicketKey,
  type TicketKeyRow,
} from './ticket-keys.repo.js'

export type { TicketClaims } from './ticket-code-payload.js'

/** A seller's public key as `GET /chk/v1/keys` publishes it. */
export type PublicJwk = { kid: string; kty: 'OKP'; crv: 'Ed25519'; x: string; active: boolean }

/** A key that signs: its private half opened from the database. */
export type SigningKey = { id: string; kid: string; legacy: boolean; privateKey: KeyObject }
/** A seller's keys that verify (none retired), as read at `at`. */
type SellerKeys = { keys: { kid: string; publicKey: KeyObject; jwk: PublicJwk }[]; at: number }

/** Signs a ticket's claims with the key its row names (null: the seller's legacy key). */
export type Signer = (claims: TicketClaims, keyId: string | null) => string

export type TicketCodesOptions = {
  /** Reads the keys that verify, outside any transaction; and listens for their changes. */
  database: Pick<Database, 'db' | 'subscribe'>
  /** Seals the private seeds (secrets.ts `ticketKeys`). */
  kek: Buffer
  /** The root the legacy keys were derived from (secrets.ts `ticketCodes`). */
  legacyRoot: Buffer
  /** How long the keys that verify are trusted from memory (another process's retire reaches this one by a notice sooner). */
  maxAgeMs?: number
}

/** How many keys and sellers one process keeps in memory (each a few hundred bytes). */
const MAX_ENTRIES = 10_000
/** An unknown `kid` reads the seller's keys again, at most this often: garbage codes do not hammer the database. */
const RELOAD_INTERVAL_MS = 250

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url')

const remember = <K, V>(map: Map<K, V>, key: K, value: V) => {
  if (map.size >= MAX_ENTRIES && !map.has(key)) map.delete(map.keys().next().value as K)
  map.set(key, value)
}

const publicJwk = (row: TicketKeyRow): PublicJwk => ({ kid: row.kid, kty: 'OKP', crv: 'Ed25519', x: row.x, active: row.active })

/**
 * Signs and verifies tickets' codes: compact JWS, EdDSA over Ed25519, with keys stored per seller
 * (ticket-keys.table.ts), private seeds sealed under the key-encryption key.
 *
 * Each ticket names its key (`tickets.signing_key_id`): the seller's active key when it was
 * issued. Ed25519 signatures are deterministic, so a ticket's code is the same on every read and
 * every replica, never stored, and a rotation changes no issued code; only a retire, which points
 * the valid tickets at the active key, does. Signing loads keys through the connection it is
 * given (inside an order's transaction nothing but the database is awaited) and keeps them
 * opened in memory: a key's material never changes. Verifying trusts the seller's keys from
 * memory for `maxAgeMs` at most, less when a notice tells of a rotation or a retire.
 *
 * Codes of stored keys use the compact payload (ticket-code-payload.ts), at most 280
 * characters; the legacy key, derived from `JWT_SECRET` before keys were stored, keeps signing
 * its tickets in the JSON layout, the very codes it printed, until it is retired.
 */
export function createTicketCodes(options: TicketCodesOptions) {
  const { kek, legacyRoot } = options
  const maxAgeMs = options.maxAgeMs ?? 5000
  const signing = new Map<string, SigningKey>()
  const legacyIds = new Map<string, string>()
  const sellers = new Map<string, SellerKeys>()
  const loading = new Map<string, Promise<SellerKeys>>()
  /** Sellers whose keys were seen committed: they always have an active key (an active key is never retired). */
  const keyed = new Set<string>()

  const rowOf = (sellerId: string, pair: KeyPair, flags: { active: boolean; legacy: boolean }): NewTicketKey => {
    const id = randomUUID()
    const kid = flags.legacy ? thumbprint(pair.x) : thumbprint(pair.x).slice(0, KID_LENGTH)
    return { id, sellerId, kid, x: pair.x, sealedSeed: sealSeed(kek, id, pair.seed), ...flags }
  }

  function open(row: TicketKeyRow): SigningKey {
    let key = signing.get(row.id)
    if (!key) {
      const seed = openSeed(kek, row.id, row.sealedSeed)
      key = { id: row.id, kid: row.kid, legacy: row.legacy, privateKey: keyPairOf(seed).privateKey }
      remember(signing, row.id, key)
    }
    return key
  }

  /** The seller's legacy key, imported now if it was not yet (a ticket without a key needs it). */
  async function legacyKey(db: Db, sellerId: string): Promise<SigningKey> {
    const known = legacyIds.get(sellerId)
    const cached = known && signing.get(known)
    if (cached) return cached
    let row = await findLegacyKeyRow(db, sellerId)
    if (!row) {
      await insertKeyRows(db, [rowOf(sellerId, legacyKeyPair(legacyRoot, sellerId), { active: false, legacy: true })])
      row = (await findLegacyKeyRow(db, sellerId))!
    }
    remember(legacyIds, sellerId, row.id)
    return open(row)
  }

  async function readSellerKeys(sellerId: string): Promise<SellerKeys> {
    const rows = await liveKeyRows(options.database.db, sellerId)
    const read: SellerKeys = {
      keys: rows.map((row) => ({
        kid: row.kid,
        publicKey: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: row.x }, format: 'jwk' }),
        jwk: publicJwk(row),
      })),
      at: Date.now(),
    }
    remember(sellers, sellerId, read)
    return read
  }

  /** The seller's keys that verify: from memory while fresh, else read once for every caller waiting. */
  function sellerKeys(sellerId: string, minAt = 0): Promise<SellerKeys> {
    const known = sellers.get(sellerId)
    if (known && known.at > minAt && Date.now() - known.at < maxAgeMs) return Promise.resolve(known)
    let pending = loading.get(sellerId)
    if (!pending) {
      pending = readSellerKeys(sellerId).finally(() => loading.delete(sellerId))
      loading.set(sellerId, pending)
    }
    return pending
  }

  const codes = {
    /**
     * Makes the seller's first keys unless it has them: a new active key and, when it has
     * tickets issued before keys were stored, the legacy key they were signed with. Two
     * processes at once make one set (the partial unique indexes keep one active and one legacy).
     */
    async ensureKeys(db: Db, sellerId: string): Promise<void> {
      if (keyed.has(sellerId)) return
      if (await findActiveKeyRow(db, sellerId)) {
        keyed.add(sellerId)
        return
      }
      const rows = [rowOf(sellerId, newKeyPair(), { active: true, legacy: false })]
      if (await hasLegacyTickets(db, sellerId)) rows.push(rowOf(sellerId, legacyKeyPair(legacyRoot, sellerId), { active: false, legacy: true }))
      await insertKeyRows(db, rows)
    },

    /** Forgets that the seller has keys: those this process saw were written by a transaction that rolled back. */
    forgetKeyed(sellerId: string) {
      keyed.delete(sellerId)
    },

    /** A new key for the seller, sealed, to be written active (rotate-ticket-key.ts). */
    newKeyRow: (sellerId: string) => rowOf(sellerId, newKeyPair(), { active: true, legacy: false }),

    /** Forgets what this process read of the seller's keys (after it changed them, or a notice said another did). */
    forget(sellerId: string) {
      sellers.delete(sellerId)
    },

    /**
     * A signer for tickets of the seller that name these keys, loaded through `db` (the order's
     * transaction, when there is one) unless already opened in this process.
     */
    async signer(db: Db, sellerId: string, keyIds: readonly (string | null)[]): Promise<Signer> {
      const keys = new Map<string, SigningKey>()
      const missing: string[] = []
      for (const id of new Set(keyIds)) {
        if (id === null) continue
        const key = signing.get(id)
        if (key) keys.set(id, key)
        else missing.push(id)
      }
      if (missing.length > 0) for (const row of await keyRowsById(db, missing)) keys.set(row.id, open(row))
      const legacy = keyIds.includes(null) ? await legacyKey(db, sellerId) : undefined
      return (claims, keyId) => signTicketCode(keyId === null ? legacy! : keys.get(keyId)!, claims)
    },

    /** The seller's public keys that verify, as JWKs (its first keys made if it has none). */
    async publicKeys(sellerId: string): Promise<PublicJwk[]> {
      await codes.ensureKeys(options.database.db, sellerId)
      return (await sellerKeys(sellerId)).keys.map((key) => key.jwk)
    },

    /**
     * The claims of a code signed with one of this seller's keys that is not retired, or null for
     * anything else: malformed, tampered, signed by another key, or of another seller.
     */
    async verify(sellerId: string, code: string): Promise<TicketClaims | null> {
      try {
        const { kid } = decodeProtectedHeader(code)
        if (typeof kid !== 'string') return null
        let keys = await sellerKeys(sellerId)
        let key = keys.keys.find((k) => k.kid === kid)
        // A key made since the seller's keys were read (a rotation whose notice is still on its way).
        if (!key && Date.now() - keys.at >= RELOAD_INTERVAL_MS) {
          keys = await sellerKeys(sellerId, keys.at)
          key = keys.keys.find((k) => k.kid === kid)
        }
        if (!key) return null
        const { payload } = await compactVerify(code, key.publicKey, { algorithms: ['EdDSA'] })
        return readPayload(payload, sellerId)
      } catch {
        return null
      }
    },

    /** Listens for other processes' rotations and retires; answers a function that stops listening. */
    listen: () =>
      options.database.subscribe(TICKET_KEYS_CHANNEL, {
        message: (sellerId) => sellers.delete(sellerId),
        reset: () => sellers.clear(),
      }),
  }
  return codes
}

/**
 * A ticket's code: a compact JWS (RFC 7515) with `kid` in its header, signed by Node's crypto
 * (OpenSSL's Ed25519) synchronously: codes are made while orders are written and answered,
 * inside transactions, and it is a quarter of the cost of a WebCrypto signature. The legacy key
 * signs in the JSON layout, as it always did; a stored key in the compact one, unless the ticket
 * does not fit it (ticket-code-payload.ts).
 */
export function signTicketCode(key: Pick<SigningKey, 'kid' | 'legacy' | 'privateKey'>, claims: TicketClaims): string {
  const payload = key.legacy ? jsonPayload(claims) : (compactPayload(claims) ?? jsonPayload(claims))
  const header = base64url(JSON.stringify({ alg: 'EdDSA', kid: key.kid }))
  const body = `${header}.${base64url(payload)}`
  return `${body}.${base64url(sign(null, Buffer.from(body), key.privateKey))}`
}

export type TicketCodes = ReturnType<typeof createTicketCodes>

/** Whether a scanned code is shaped as a compact JWS (three base64url parts), not an identifier. */
export const looksSigned = (code: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(code)
