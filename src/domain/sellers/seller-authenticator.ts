import { hash } from 'node:crypto'
import { hashOpaqueToken, sameHash } from '../../platform/auth/opaque-token.js'
import { EpochCache } from '../../platform/cache/epoch-cache.js'
import type { Database } from '../../platform/db/database.js'
import { UUID_PATTERN } from '../../platform/uuid.js'
import { isSessionLive } from '../customers/customer-tokens.repo.js'
import { findActiveAffiliateByCode } from './affiliates.repo.js'
import { findActiveKeyByHash, touchApiKey } from './api-keys.repo.js'
import { listenForSellerChanges } from './seller-changes.js'
import { settingsOf, type SellerSettings } from './seller-settings.js'

/** The seller a storefront call acts for, from its Basic credentials. */
export type SellerContext = Readonly<{ id: string; name: string; storefrontUrl: string; settings: Readonly<SellerSettings> }>

/** The affiliate named by `X-Affiliate-Code`; `eventIds` null means every event of the seller. */
export type AffiliateContext = Readonly<{ id: string; code: string; name: string; eventIds: readonly string[] | null }>

/** Credentials memory holds as verified. */
export type KeyEntry = {
  seller: SellerContext
  keyId: string
  until: number
  touchedAt: number
  /**
   * `X-Affiliate-Code` values exactly as sent with these credentials, and their answers: copies
   * from the affiliate memory below, dropped with the entry when the seller changes.
   */
  affiliatesAsSent: Map<string, AffiliateContext | null>
}
type AffiliateEntry = { sellerId: string; affiliate: AffiliateContext | null; until: number }
/** A customer session (refresh-token family) found live; its end is announced for its customer. */
type SessionEntry = { sellerId: string; customerId: string; until: number }

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

/** Credentials that could be right at all: anything else is refused without hashing or asking. */
const plausible = (sellerId: string, apiKey: string) => UUID_PATTERN.test(sellerId) && apiKey.length >= 16 && apiKey.length <= 256

/** How many spellings of affiliate codes one entry keeps (a flood of made-up codes stays small). */
const MAX_AFFILIATES_AS_SENT = 16

const affiliateKey = (sellerId: string, code: string) => `${sellerId}:${code.toLowerCase()}`

const canonicalAuthorization = (sellerId: string, apiKey: string) => `Basic ${Buffer.from(`${sellerId}:${apiKey}`, 'latin1').toString('base64')}`

/** Longer than any Authorization header whose credentials could be right (a UUID and a 256-character key, in base64). */
const MAX_AUTHORIZATION = 512

/**
 * Where verified credentials are remembered in memory: the SHA-256 of the Authorization header
 * exactly as sent, never the key itself. A hit then costs one digest and no parsing at all.
 * The keyed hash (HMAC) is what the database stores; a plain digest of a high-entropy secret is
 * as safe in this process's memory and several times cheaper on every call.
 */
const memoryKey = (authorization: string) => hash('sha256', authorization, 'hex')

/**
 * Verifies storefront credentials (and the sessions of customer tokens) with a keyed hash (API keys are high-entropy, so a slow
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
  const trusted = () => database.listening()
  const keys = new EpochCache<KeyEntry>({ maxEntries, groupOf: (entry) => entry.seller.id, trusted })
  const affiliates = new EpochCache<AffiliateEntry>({ maxEntries, groupOf: (entry) => entry.sellerId, trusted })
  const sessions = new EpochCache<SessionEntry>({ maxEntries, groupOf: (entry) => entry.customerId, trusted })
  let unsubscribe: (() => Promise<void>) | undefined
  // Sellers changed, and customers whose sessions were ended, by this process, whose database
  // notice has not arrived yet: not cached. A rolled-back change sends no notice, hence the deadline.
  const pendingSellers = new Map<string, number>()
  const pendingCustomers = new Map<string, number>()
  const isPending = (pending: Map<string, number>, id: string) => {
    const until = pending.get(id)
    if (until !== undefined && until < Date.now()) pending.delete(id)
    return pending.has(id)
  }

  // A change this process is making: forgotten now, and not cached again before its notice.
  const making = (pending: Map<string, number>, forget: (id: string) => void) => (id: string) => {
    pending.set(id, Date.now() + PENDING_MS)
    forget(id)
  }
  // A change's notice: it has committed, so what is read from now on may be kept.
  const heard = (pending: Map<string, number>, forget: (id: string) => void) => (id: string) => {
    pending.delete(id)
    forget(id)
  }

  function forgetSeller(sellerId: string) {
    keys.forget(sellerId)
    affiliates.forget(sellerId)
  }

  function forgetAll() {
    keys.clear()
    affiliates.clear()
    sessions.clear()
  }

  function touch(entry: KeyEntry, now: number) {
    if (now - entry.touchedAt < touchEveryMs) return
    entry.touchedAt = now
    touchApiKey(database.db, entry.keyId).catch((error) => options.onError?.(error))
  }

  const authenticator = {
    async start() {
      unsubscribe = await listenForSellerChanges(database, {
        changed: heard(pendingSellers, forgetSeller),
        reset: forgetAll,
        changing: making(pendingSellers, forgetSeller),
        sessionsEnded: heard(pendingCustomers, (customerId) => sessions.forget(customerId)),
        sessionsEnding: making(pendingCustomers, (customerId) => sessions.forget(customerId)),
        ...(options.onError ? { onError: options.onError } : {}),
      })
    },

    async stop() {
      await unsubscribe?.()
      forgetAll()
    },

    /**
     * The seller of this Authorization header when memory holds it as verified, else undefined:
     * the caller then parses the header and asks `authenticate`. Synchronous, so a hit costs no
     * promise; wrong credentials are never remembered, so nothing is refused from memory.
     */
    authenticateCached(authorization: string | undefined): KeyEntry | undefined {
      if (authorization === undefined || authorization.length > MAX_AUTHORIZATION) return undefined
      const now = Date.now()
      const cached = keys.get(memoryKey(authorization), now)
      if (!cached) return undefined
      touch(cached, now)
      return cached
    },

    /**
     * The seller of these credentials (parsed from `authorization`), or null when they are wrong,
     * revoked or disabled, from the database: for a header `authenticateCached` did not know.
     */
    async authenticate(authorization: string, sellerId: string, apiKey: string): Promise<{ seller: SellerContext; keyId: string } | null> {
      if (!plausible(sellerId, apiKey)) return null
      const storedHash = hashOpaqueToken(tokenHmac, apiKey)
      const remembered = memoryKey(authorization)
      const now = Date.now()
      const since = keys.since()
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
        until: now + ttlMs,
        touchedAt: keys.peek(remembered)?.touchedAt ?? 0,
        affiliatesAsSent: new Map(),
      }
      // Only the canonical spelling is remembered: one entry per key, however many ways a client
      // finds to spell it (the scheme's case, the id's case, extra padding).
      if (!isPending(pendingSellers, entry.seller.id) && authorization === canonicalAuthorization(entry.seller.id, apiKey)) keys.set(remembered, entry, since)
      touch(entry, now)
      return entry
    },

    /** The answer for `X-Affiliate-Code` exactly as sent with these credentials, when the entry holds it. */
    affiliateAsSent(entry: KeyEntry, header: string): AffiliateContext | null | undefined {
      return entry.affiliatesAsSent.get(header)
    },

    /** Keeps an answer of the affiliate memory with the credentials it was sent with. */
    rememberAffiliateAsSent(entry: KeyEntry, header: string, affiliate: AffiliateContext | null) {
      if (entry.affiliatesAsSent.size < MAX_AFFILIATES_AS_SENT) entry.affiliatesAsSent.set(header, affiliate)
    },

    /** The affiliate for this code when memory holds the answer (null: no such active affiliate), else undefined. */
    resolveAffiliateCached(sellerId: string, code: string): AffiliateContext | null | undefined {
      return affiliates.get(affiliateKey(sellerId, code), Date.now())?.affiliate
    },

    /** The active affiliate of this seller with this code, or null. */
    async resolveAffiliate(sellerId: string, code: string): Promise<AffiliateContext | null> {
      const known = authenticator.resolveAffiliateCached(sellerId, code)
      if (known !== undefined) return known
      const now = Date.now()
      const since = affiliates.since()
      const found = await findActiveAffiliateByCode(database.db, sellerId, code)
      const affiliate = found ? Object.freeze({ ...found, eventIds: found.eventIds ? Object.freeze(found.eventIds) : null }) : null
      // Unknown codes are cached too, so a flood of bad codes costs no database round trips.
      if (!isPending(pendingSellers, sellerId)) affiliates.set(affiliateKey(sellerId, code), { sellerId, affiliate, until: now + ttlMs }, since)
      return affiliate
    },

    /**
     * Whether this session of this customer of this seller is live: from memory when it was found
     * live before, else from the database. Ending a session (logout, password reset, a reused
     * refresh token, the first proof of the inbox) announces its customer, so every process forgets.
     */
    async isCustomerSessionLive(sellerId: string, customerId: string, sessionId: string): Promise<boolean> {
      const now = Date.now()
      const cached = sessions.get(sessionId, now)
      if (cached && cached.sellerId === sellerId && cached.customerId === customerId) return true
      const since = sessions.since()
      const live = await isSessionLive(database.db, sellerId, customerId, sessionId)
      if (live && !isPending(pendingCustomers, customerId)) sessions.set(sessionId, { sellerId, customerId, until: now + ttlMs }, since)
      return live
    },

    forgetSeller,
  }
  return authenticator
}

export type SellerAuthenticator = ReturnType<typeof createSellerAuthenticator>
