import { normalizeIP } from '@fastify/rate-limit'
import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import { normalizeEmail } from '../auth/email.js'
import { hashOpaqueToken } from '../auth/opaque-token.js'
import type { Config } from '../config.js'
import { AppError, isAppError } from '../errors.js'

/**
 * Counters of attempts per key within a window, for the limits on the authentication routes
 * (rate-limiter-flexible: in process memory, or in Redis when `REDIS_URL` is set, so that every
 * replica counts together). A Redis that fails falls back to a counter in this process's
 * memory: the limits still hold per process, and the API stays up.
 *
 * Every attempt is counted before the work it guards (a password hash, an email), so a burst of
 * concurrent attempts cannot slip past the limit; an attempt that turns out legitimate (the right
 * password) is forgiven afterwards.
 *
 * Keys read `<REDIS_KEY_PREFIX>rl:<limit name>:<key>`.
 */
export type Limit = {
  /** Counts one attempt; answers whether it is within the limit and, when not, seconds to wait. */
  count(key: string): Promise<LimitVerdict>
  /** Counts one attempt; 429 `rate_limited` with `Retry-After` beyond the limit. */
  hit(key: string): Promise<void>
  /** Takes one counted attempt back (it proved legitimate). */
  forgive(key: string): Promise<void>
  /** Forgets every attempt counted under the key. */
  clear(key: string): Promise<void>
}

export type LimitVerdict = { allowed: boolean; retryAfterSeconds: number }

export type Limits = {
  /** A limit of `max` attempts per key within `windowSeconds`, named for its keys. */
  define(name: string, max: number, windowSeconds: number): Limit
}

export const rateLimited = (retryAfterSeconds: number) =>
  new AppError('rate_limited', { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) } })

/** A client address as a limit's key: IPv4-mapped IPv6 as IPv4, IPv6 by its /64 (one host can hold a whole /64). */
export const addressKey = (ip: string) => normalizeIP(ip)

/** An email (as the body gave it) as a limit's key: its keyed hash, so that the limit store holds no email. */
export const emailKey = (tokenHmac: Buffer, email: unknown) =>
  hashOpaqueToken(tokenHmac, `rate-limit:${normalizeEmail(typeof email === 'string' ? email : '')}`)

/**
 * Runs a password login within `attempts` for `key`, for staff and customers alike. The attempt is
 * counted before the password is checked, so concurrent guesses cannot all be checked, and
 * forgiven when the password was right. Past the limit the login is refused with 429, unless
 * `mayPassLock` says this caller may still try (staff: from an address the account's owner signed
 * in from); its right password then ends the lock, and a wrong one says no more than the lock does.
 */
export async function guardLogin<T>(attempts: Limit, key: string, login: () => Promise<T>, mayPassLock?: () => Promise<boolean>): Promise<T> {
  const verdict = await attempts.count(key)
  const locked = !verdict.allowed
  if (locked && !(await mayPassLock?.())) throw rateLimited(verdict.retryAfterSeconds)
  let result: T
  try {
    result = await login()
  } catch (error) {
    if (locked && isAppError(error) && error.code === 'invalid_credentials') throw rateLimited(verdict.retryAfterSeconds)
    throw error
  }
  await (locked ? attempts.clear(key) : attempts.forgive(key))
  return result
}

export function createLimits(options: { redis?: Redis | undefined; keyPrefix: string }): Limits {
  // One counter per name, however many route files define it: two in-memory counters under one
  // name would each let the full limit through.
  const defined = new Map<string, Limit>()
  return {
    define(name, max, windowSeconds) {
      const known = defined.get(name)
      if (known) return known
      const keyPrefix = `${options.keyPrefix}rl:${name}`
      const memory = new RateLimiterMemory({ keyPrefix, points: max, duration: windowSeconds })
      const limiter: RateLimiterAbstract = options.redis
        ? new RateLimiterRedis({
            storeClient: options.redis,
            keyPrefix,
            points: max,
            duration: windowSeconds,
            // A Redis that is down answers at once and the memory counter takes over.
            rejectIfRedisNotReady: true,
            insuranceLimiter: memory,
          })
        : memory
      const swallow = () => undefined
      const count = async (key: string): Promise<LimitVerdict> => {
        try {
          await limiter.consume(key)
          return { allowed: true, retryAfterSeconds: 0 }
        } catch (refusal) {
          if (refusal instanceof RateLimiterRes) return { allowed: false, retryAfterSeconds: refusal.msBeforeNext / 1000 }
          // Neither store answered: a limit store must not take the API down with it.
          return { allowed: true, retryAfterSeconds: 0 }
        }
      }
      const limit: Limit = {
        count,
        async hit(key) {
          const verdict = await count(key)
          if (!verdict.allowed) throw rateLimited(verdict.retryAfterSeconds)
        },
        forgive: (key) => limiter.reward(key, 1).then(swallow, swallow),
        clear: (key) => limiter.delete(key).then(swallow, swallow),
      }
      defined.set(name, limit)
      return limit
    },
  }
}

/** How long a starting process waits for Redis before it counts in memory meanwhile. */
const redisStartWaitMs = 5000

/** Resolves once `redis` is ready, has failed to connect once, or after `waitMs`. */
function connected(redis: Redis, waitMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      redis.off('ready', done)
      redis.off('error', done)
      resolve()
    }
    const timer = setTimeout(done, waitMs)
    redis.once('ready', done)
    redis.once('error', done)
  })
}

/**
 * `app.limits`: attempt counters in this process, or shared by every replica through Redis when
 * `REDIS_URL` is set. The Redis connection closes with the app.
 */
export const limitsPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    // ioredis loads only when it is used.
    const redis = config.redisUrl
      ? new (await import('ioredis')).Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 })
      : undefined
    redis?.on('error', (error) => app.log.warn({ err: error.message }, 'redis unavailable'))
    // Counted in memory until the connection is up, the first requests of a new replica would not
    // count with the others: start once Redis answers, or once it has failed to (it is retried).
    if (redis) await connected(redis, redisStartWaitMs)
    app.decorate('limits', createLimits({ redis, keyPrefix: config.redisKeyPrefix }))
    if (redis)
      app.addHook('onClose', () =>
        redis.quit().then(
          () => undefined,
          () => undefined,
        ),
      )
  },
  { name: 'limits' },
)
