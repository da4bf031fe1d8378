import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { SELLER_CHANGES_CHANNEL } from '../domain/sellers/seller-changes.js'
import { EpochCache } from '../platform/cache/epoch-cache.js'
import type { Database } from '../platform/db/database.js'
import { addVary, negotiateEncoding } from '../platform/http/compression.js'
import { addRouteHook } from '../platform/http/route-hooks.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Answer this storefront GET from the catalogue cache (per seller and affiliate scope);
     * `maxBodyBytes`: keep answers up to this size (larger than the cache's default, e.g. a seat map).
     */
    catalogueCache?: boolean | { maxBodyBytes: number }
  }
  interface FastifyInstance {
    /** Catalogue answers kept per seller, forgotten by every process when the catalogue changes. */
    catalogueCache: CatalogueCache
  }
}

/** The database channel of announce_catalogue_changed (src/domain/catalog/sql/): a seller id, when what its catalogue shows changed. */
export const CATALOGUE_CHANGED_CHANNEL = 'catalogue_changed'

/**
 * An answer as it went out: its body (compressed when `encoding` says so), kept as bytes so that
 * a hit sends them as they are (no serializing, no UTF-8 encoding per request), and content type.
 */
type Entry = { sellerId: string; body: Buffer; type: string; encoding: string | undefined; etag: string; until: number }
export type StoredAnswer = { body: string | Buffer; type: string; encoding?: string | undefined }
/** Where a miss started: it is stored only if nothing changed meanwhile. */
type Miss = { key: string; sellerId: string; since: number }

export type CatalogueCacheOptions = {
  database: Pick<Database, 'subscribe' | 'listening'>
  /** How long an answer is served at most (sales and holds change availability without a notice); 0 turns the cache off. */
  maxAgeMs: number
  maxEntries?: number
  /** Larger answers are not kept. */
  maxBodyBytes?: number
  /** At most this many bytes of answers in all: the oldest go first. */
  maxTotalBytes?: number
}

export type CatalogueCache = ReturnType<typeof createCatalogueCache>

/**
 * The serialized answers of the catalogue routes (`GET /stf/v1/events`, `/events/{id}`,
 * `/events/{id}/availability`), by seller, affiliate scope and URL. An answer is served while
 *   - it is younger than `maxAgeMs` (1 s by default: a sale or a hold shows within it),
 *   - no change of the seller's catalogue was announced (announce_catalogue_changed notifies every process
 *     at commit: events, inventories) nor of the seller itself (settings, affiliates),
 *   - the listening connection is up (notices may be lost otherwise),
 * and an answer computed while a notice arrived is not kept.
 */
export function createCatalogueCache(options: CatalogueCacheOptions) {
  const { database, maxAgeMs } = options
  const maxEntries = options.maxEntries ?? 5000
  const maxBodyBytes = options.maxBodyBytes ?? 256 * 1024
  const maxTotalBytes = options.maxTotalBytes ?? 32 * 1024 * 1024
  const entries = new EpochCache<Entry>({
    maxEntries,
    groupOf: (entry) => entry.sellerId,
    // Bounded in count and in size: the oldest answers go first.
    weightOf: (entry) => entry.body.length,
    maxWeight: maxTotalBytes,
    trusted: () => database.listening(),
  })
  const stops: (() => Promise<void>)[] = []
  const forgetSeller = (sellerId: string) => entries.forget(sellerId)
  const forgetAll = () => entries.clear()

  return {
    enabled: maxAgeMs > 0,

    async start() {
      if (maxAgeMs <= 0) return
      stops.push(await database.subscribe(CATALOGUE_CHANGED_CHANNEL, { message: forgetSeller, reset: forgetAll }))
      stops.push(await database.subscribe(SELLER_CHANGES_CHANNEL, { message: (payload) => forgetSeller(payload.split(' ')[0] ?? ''), reset: forgetAll }))
    },

    async stop() {
      for (const stop of stops.splice(0)) await stop()
      forgetAll()
    },

    /** A fresh answer for this key, if one is kept and may be trusted. */
    lookup(key: string): Entry | undefined {
      return entries.get(key, Date.now())
    },

    /** Where a computation of this seller's answer starts. */
    miss(key: string, sellerId: string): Miss {
      return { key, sellerId, since: entries.since() }
    },

    /**
     * Keeps an answer computed since `miss`, unless a notice came meanwhile (or it is larger than
     * `maxBytes`, the cache's own limit by default). Answers its ETag either way, and the answer
     * as kept when no notice came meanwhile (also when too large to keep): the one requests that
     * arrived while it was computed may be given.
     */
    store(miss: Miss, answer: StoredAnswer | string, maxBytes = maxBodyBytes): { etag: string; fresh: Entry | undefined } {
      const { body: sent, type, encoding } = typeof answer === 'string' ? { body: answer, type: JSON_TYPE, encoding: undefined } : answer
      const body = typeof sent === 'string' ? Buffer.from(sent) : sent
      const entry: Entry = { sellerId: miss.sellerId, body, type, encoding, etag: etagOf(body), until: Date.now() + maxAgeMs }
      if (!entries.fresh(miss.sellerId, miss.since)) return { etag: entry.etag, fresh: undefined }
      if (body.length <= maxBytes) entries.set(miss.key, entry, miss.since)
      return { etag: entry.etag, fresh: entry }
    },

    forgetSeller,
    /** What is kept now (for tests and metrics). */
    size: () => {
      const { entries: count, weight } = entries.size()
      return { entries: count, bytes: weight }
    },
  }
}

const JSON_TYPE = 'application/json; charset=utf-8'

const etagOf = (body: Buffer) => `"${createHash('sha1').update(body).digest('base64url')}"`

/** Whether `If-None-Match` names this ETag (or is `*`). */
const matches = (header: string | undefined, etag: string) =>
  header !== undefined && (header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))

/**
 * `app.catalogueCache`, listening while the app runs (`CATALOGUE_CACHE_MS`, 0 turns it off).
 * Register at the root, before the storefront.
 */
export const catalogueCachePlugin = fp<{ maxAgeMs: number }>(
  async (app, { maxAgeMs }) => {
    const cache = createCatalogueCache({ database: app.database, maxAgeMs })
    await cache.start()
    app.decorate('catalogueCache', cache)
    app.addHook('onClose', () => cache.stop())
  },
  { name: 'catalogue-cache', dependencies: ['database'] },
)

/**
 * A computation of an answer under way, led by the first request that missed its key: the
 * requests for the same key that arrive meanwhile wait for it instead of computing it again.
 */
type Computing = { miss: Miss; waiters: ((answer: Entry | undefined) => void)[]; settled: boolean }

/**
 * The hooks of the cached catalogue routes (`config: { catalogueCache: true }`), hooks of those
 * routes' own (the storefront's other routes do not pass through them). Register in the
 * storefront after the seller's authentication: an answer is keyed by the seller and the
 * affiliate's scope, never shared between them. Every answer, cached or not, carries an `ETag`;
 * a request whose `If-None-Match` names it gets 304 with no body.
 *
 * A miss is computed once: the requests for the same key that arrive while it is computed (when a
 * kept answer has just aged out under load, every connection's next request) wait for it and are
 * given its answer, unless a notice came meanwhile or it failed; each then computes its own.
 */
export function registerCatalogueCache(app: FastifyInstance) {
  const cache = app.catalogueCache
  if (!cache.enabled) return
  /** The computation each leading request leads, from onRequest to onSend: this app's, gone with the request. */
  const leading = new WeakMap<FastifyRequest, Computing>()
  /** The computations under way, by key. */
  const computing = new Map<string, Computing>()

  /** Ends a computation: its waiters are given its answer, or compute their own without one. */
  const settle = (computation: Computing, answer: Entry | undefined) => {
    if (computation.settled) return
    computation.settled = true
    if (computing.get(computation.miss.key) === computation) computing.delete(computation.miss.key)
    if (computation.waiters.length === 0) return
    queueMicrotask(() => {
      for (const waiter of computation.waiters) waiter(answer)
    })
  }

  /** This request computes the answer for `key`, and leads the requests for it that come meanwhile unless `alone`. */
  const lead = (request: FastifyRequest, key: string, alone: boolean) => {
    const computation: Computing = { miss: cache.miss(key, request.seller.id), waiters: [], settled: alone }
    leading.set(request, computation)
    if (!alone) computing.set(key, computation)
  }

  const settleLeader = (request: FastifyRequest) => {
    const computation = leading.get(request)
    if (computation === undefined) return
    leading.delete(request)
    settle(computation, undefined)
  }

  app.addHook('onRoute', (route) => {
    const config = route.config?.catalogueCache
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (!config || !methods.includes('GET')) return
    const maxBytes = typeof config === 'object' ? config.maxBodyBytes : undefined
    // A compressed route's answers are kept as they went out, one per encoding.
    const compressed = route.config?.compress === true

    addRouteHook(route, 'onRequest', (request, reply, done) => {
      if (request.method !== 'GET') return done()
      const scope = request.affiliate?.eventIds ? [...request.affiliate.eventIds].sort().join(',') : '*'
      const encoding = compressed ? negotiateEncoding(request.headers['accept-encoding']) : ''
      const key = `${request.seller.id}|${scope}|${encoding}|${request.url}`
      const hit = cache.lookup(key)
      if (hit) return sendKept(request, reply, hit)
      const running = computing.get(key)
      if (running === undefined) {
        lead(request, key, false)
        return done()
      }
      running.waiters.push((answer) => {
        if (answer) return sendKept(request, reply, answer)
        lead(request, key, true)
        done()
      })
    })

    addRouteHook(route, 'onSend', (request, reply, payload, done) => {
      const computation = leading.get(request)
      if (computation === undefined) return done(null, payload)
      leading.delete(request)
      if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
        settle(computation, undefined)
        return done(null, payload)
      }
      const encoding = reply.getHeader('content-encoding')
      const { etag, fresh } = cache.store(
        computation.miss,
        { body: payload, type: String(reply.getHeader('content-type') ?? JSON_TYPE), encoding: typeof encoding === 'string' ? encoding : undefined },
        maxBytes,
      )
      settle(computation, fresh)
      privately(reply).header('etag', etag)
      if (!matches(request.headers['if-none-match'], etag)) return done(null, payload)
      reply.code(304)
      done(null, '')
    })

    // A leader that ends without an answer to give (the client went away) lets its waiters compute.
    addRouteHook(route, 'onResponse', (request, _reply, done) => {
      settleLeader(request)
      done()
    })
    addRouteHook(route, 'onRequestAbort', (request, done) => {
      settleLeader(request)
      done()
    })
  })
}

/** An answer kept (or just computed for this request's key): its bytes as they are, no serializer runs; 304 to its ETag. */
function sendKept(request: FastifyRequest, reply: FastifyReply, answer: Entry) {
  privately(reply).header('etag', answer.etag)
  if (matches(request.headers['if-none-match'], answer.etag)) {
    reply.code(304).send()
    return
  }
  if (answer.encoding) reply.header('content-encoding', answer.encoding)
  reply.type(answer.type).send(answer.body)
}

const PRIVATE_VARY = ['authorization', 'x-affiliate-code']
const PRIVATE_VARY_HEADER = PRIVATE_VARY.join(', ')

/** Answers of one seller's credentials: no shared cache may keep them, and clients revalidate. */
function privately(reply: FastifyReply) {
  reply.header('cache-control', 'private, no-cache')
  // Most answers carry no Vary yet (a hit never does): the list is then written as it is.
  if (reply.hasHeader('vary')) addVary(reply, ...PRIVATE_VARY)
  else reply.header('vary', PRIVATE_VARY_HEADER)
  return reply
}
