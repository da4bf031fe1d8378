import { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { hashOpaqueToken } from '../platform/auth/opaque-token.js'
import { AppError } from '../platform/errors.js'

type Hook = (request: FastifyRequest) => Promise<void>

/**
 * Limits on the customer authentication routes, against password guessing and mail bombing
 * (`config.stfRateLimits`; one store, Redis when `REDIS_URL` is set). Every counter is per
 * seller, since an email names a customer of one seller only:
 *
 * - per client IP, as `onRequest` hooks (before the body is parsed): login; refresh; the calls
 *   that send an email (register, forgot-password, magic-link, one counter); the calls that
 *   consume an emailed token (reset-password, magic-link/verify, verify-email, one counter);
 * - per email named in the body, as `preHandler` hooks: login attempts, and the emails asked
 *   by forgot-password and magic-link together. Every attempt counts, before any work, so a
 *   burst of concurrent attempts cannot slip past the limit.
 *
 * Beyond a limit: 429 `rate_limited` with `Retry-After` in seconds.
 *
 * These are `app.createRateLimit` checks rather than `config.rateLimit` plus `app.rateLimit()`:
 * the plugin runs only the first of its hooks on a request, and a route needs two keys.
 */
export function customerRateLimits(app: FastifyInstance) {
  const limits = app.config.stfRateLimits
  const timeWindow = limits.windowSeconds * 1000

  const byIp = (request: FastifyRequest) => normalizeIP(request.ip)
  // Addresses are keyed by their HMAC, so the rate-limit store holds no emails.
  const byEmail = (request: FastifyRequest) => {
    const email = (request.body as { email?: unknown } | undefined)?.email
    return hashOpaqueToken(app.secrets.tokenHmac, `rate-limit:${typeof email === 'string' ? email.toLowerCase() : ''}`)
  }

  const limiter = (name: string, max: number, key: (request: FastifyRequest) => string): Hook => {
    const check = app.createRateLimit({
      max,
      timeWindow,
      keyGenerator: (request) => `stf:${name}:${request.seller.id}:${key(request)}`,
    })
    return async function rateLimit(request) {
      const state = await check(request)
      if (!state.isAllowed && state.isExceeded) {
        throw new AppError('rate_limited', { headers: { 'retry-after': String(Math.max(1, state.ttlInSeconds)) } })
      }
    }
  }

  return {
    loginPerIp: limiter('login:ip', limits.loginPerIp, byIp),
    loginPerEmail: limiter('login:email', limits.loginPerEmail, byEmail),
    emailPerIp: limiter('email:ip', limits.emailPerIp, byIp),
    emailPerEmail: limiter('email:email', limits.emailPerEmail, byEmail),
    refreshPerIp: limiter('refresh:ip', limits.refreshPerIp, byIp),
    tokenPerIp: limiter('token:ip', limits.tokenPerIp, byIp),
  }
}
