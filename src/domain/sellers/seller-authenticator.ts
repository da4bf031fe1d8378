import { hash } from 'node:crypto'
import { hashOpaqueToken, sameHash } from '../../platform/auth/opaque-token.js'
import type { Database } from '../../platform/db/database.js'
import { findActiveAffiliateByCode } from './affiliates.repo.js'
import { findActiveKeyByHash, touchApiKey } from './api-keys.repo.js'
import { localSellerChanges, SELLER_CHANGES_CHANNEL } from './seller-changes.js'
import { settingsOf, type SellerSettings } from './seller-settings.js'

/** The seller a storefront call acts for, from its Basic credentials. */
export type SellerContext = Readonly<{ id: string; name: string; storefrontUrl: string; settings: Readonly<SellerSettings> }>

/** The affiliate named by `X-Affiliate-Code`; `eventIds` null means every event of the seller. */
export type AffiliateContext = Readonly<{ id: string; code: string; name: string; eventIds: readonly string[] | null }>

type KeyEntry = { seller: SellerContext; keyId: string; expiresAt: number; touchedAt: number }
type AffiliateEntry = { affiliate: AffiliateContext | null; expiresAt: number }

export type SellerAuthenticatorOptions = {
  database: Database
  tokenHmac: Buffer
  /** How long a verified key is trusted without asking the database (a safety net behind notifications). */
  ttlMs?: number
  maxEntries?: number
  /** How often `last_used_at` is written for a key in use. */
  touchEveryMs?: number
  onError?: (error: unknown) => void
}

const PENDING_MS = 5000

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Credentials that could be right at all: anything else is refused without hashing or asking. */
const plausible = (sellerId: string, apiKey: string) => UUID.test(sellerId) && apiKey.length >= 16 && apiKey.length <= 256

const affiliateKey = (sellerId: string, code: string) => `${sellerId}:${code.toLowerCase()}`

/**
 * Where a verified key is remembered in memory: its SHA-256, never the key itself. The keyed
 * hash (HMAC) is what the database stores; a plain digest of a high-entropy secret is as safe in
 * this process's memory and several times cheaper on every call.
 */
const memoryKey = (apiKey: string) => hash('sha256', apiKey, 'base64url')

/**
 * Verifies storefront credentials with a keyed hash (API keys are high-entropy, so a slow
 * password hash would only add latency) and keeps verified keys in process memory, so the hot
 * path costs no database round trip. A revoked key, a disabled seller or a changed affiliate is
 * announced on a database channel at commit; every process forgets that seller at once. While
 * the listening connection is down nothing is served from memory.
 */
export function createSellerAuthenticator(options: SellerAuthenticatorOptions) {
  const { database, tokenHmac } = options
  const ttlMs = options.ttlMs ?? 30_000
  const maxEntries = options.maxEntries ?? 10_000
  const touchEveryMs = options.touchEveryMs ?? 60_000
  const keys = new Map<string, KeyEntry>()
  const affiliates = new Map<string, AffiliateEntry>()
  let unsubscribe: (() => Promise<void>) | undefined
  // Bumped by every change notice. A lookup that started before a notice may have read the old
  // state, so its result is used for that request but not remembered.
  let epoch = 0
  // Sellers changed by this process whose database notice has not arrived yet: not cached.
  // A rolled-back change sends no notice, hence the deadline.
  const pending = new Map<string, number>()
  const onLocalChange = (sellerId: string) => {
    pending.set(sellerId, Date.now() + PENDING_MS)
    forgetSeller(sellerId)
  }

  const trusted = () => database.listening()
  const cacheable = (sellerId: string, startEpoch: number) => {
    const until = pending.get(sellerId)
    if (until !== undefined && until < Date.now()) pending.delete(sellerId)
    return trusted() && epoch === startEpoch && !pending.has(sellerId)
  }

  function forgetSeller(sellerId: string) {
    epoch++
    for (const [digest, entry] of keys) if (entry.seller.id === sellerId) keys.delete(digest)
    for (const key of affiliates.keys()) if (key.startsWith(`${sellerId}:`)) affiliates.delete(key)
  }

  function forgetAll() {
    epoch++
    keys.clear()
    affiliates.clear()
  }

  function remember<V>(map: Map<string, V>, key: string, value: V) {
    // Bounded: when full, the oldest entry goes (Map keeps insertion order).
    if (map.size >= maxEntries) map.delete(map.keys().next().value as string)
    map.set(key, value)
  }

  function touch(entry: KeyEntry, now: number) {
    if (now - entry.touchedAt < touchEveryMs) return
    entry.touchedAt = now
    touchApiKey(database.db, entry.keyId).catch((error) => options.onError?.(error))
  }

  const authenticator = {
    async start() {
      localSellerChanges.on('change', onLocalChange)
      unsubscribe = await database.subscribe(SELLER_CHANGES_CHANNEL, {
        message: (sellerId) => {
          pending.delete(sellerId)
          forgetSeller(sellerId)
        },
        reset: forgetAll,
      })
    },

    async stop() {
      localSellerChanges.off('change', onLocalChange)
      await unsubscribe?.()
      forgetAll()
    },

    /**
     * The answer for these credentials when memory holds it: the entry, null when they are
     * wrong for a cached key, undefined when the database must be asked (`authenticate`).
     * Synchronous, so a cache hit costs no promise.
     */
    authenticateCached(sellerId: string, apiKey: string): KeyEntry | null | undefined {
      if (!plausible(sellerId, apiKey)) return null
      const cached = keys.get(memoryKey(apiKey))
      const now = Date.now()
      if (!cached || cached.expiresAt <= now || !trusted()) return undefined
      // The seller id is public (the Basic user name): a plain comparison leaks nothing.
      if (cached.seller.id !== sellerId.toLowerCase()) return null
      touch(cached, now)
      return cached
    },

    /** The seller of these credentials, or null when they are wrong, revoked or disabled. */
    async authenticate(sellerId: string, apiKey: string): Promise<{ seller: SellerContext; keyId: string } | null> {
      const known = authenticator.authenticateCached(sellerId, apiKey)
      if (known !== undefined) return known
      const storedHash = hashOpaqueToken(tokenHmac, apiKey)
      const remembered = memoryKey(apiKey)
      const now = Date.now()
      const startEpoch = epoch
      const row = await findActiveKeyByHash(database.db, storedHash)
      if (!row || !sameHash(row.seller.id, sellerId.toLowerCase())) return null
      const entry: KeyEntry = {
        seller: Object.freeze({
          id: row.seller.id,
          name: row.seller.name,
          storefrontUrl: row.seller.storefrontUrl,
          settings: Object.freeze(settingsOf(row.seller)),
        }),
        keyId: row.keyId,
        expiresAt: now + ttlMs,
        touchedAt: keys.get(remembered)?.touchedAt ?? 0,
      }
      if (cacheable(entry.seller.id, startEpoch)) remember(keys, remembered, entry)
      touch(entry, now)
      return entry
    },

    /** The affiliate for this code when memory holds the answer (null: no such active affiliate), else undefined. */
    resolveAffiliateCached(sellerId: string, code: string): AffiliateContext | null | undefined {
      const cached = affiliates.get(affiliateKey(sellerId, code))
      return cached && cached.expiresAt > Date.now() && trusted() ? cached.affiliate : undefined
    },

    /** The active affiliate of this seller with this code, or null. */
    async resolveAffiliate(sellerId: string, code: string): Promise<AffiliateContext | null> {
      const known = authenticator.resolveAffiliateCached(sellerId, code)
      if (known !== undefined) return known
      const now = Date.now()
      const startEpoch = epoch
      const found = await findActiveAffiliateByCode(database.db, sellerId, code)
      const affiliate = found ? Object.freeze({ ...found, eventIds: found.eventIds ? Object.freeze(found.eventIds) : null }) : null
      // Unknown codes are cached too, so a flood of bad codes costs no database round trips.
      if (cacheable(sellerId, startEpoch)) remember(affiliates, affiliateKey(sellerId, code), { affiliate, expiresAt: now + ttlMs })
      return affiliate
    },

    forgetSeller,
  }
  return authenticator
}

export type SellerAuthenticator = ReturnType<typeof createSellerAuthenticator>
