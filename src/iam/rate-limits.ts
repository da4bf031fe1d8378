import type { FastifyInstance, FastifyRequest } from 'fastify'
import { normalizeEmail } from '../domain/staff/staff-rules.js'
import { hashOpaqueToken } from '../platform/auth/opaque-token.js'
import { AppError } from '../platform/errors.js'

/**
 * Limits on the unauthenticated staff routes, against password guessing, token guessing
 * and mail bombing (`config.iamRateLimits`, one shared store: Redis when `REDIS_URL` is set).
 *
 * - Per IP (route `config.rateLimit`, before the body is even parsed): login, refresh,
 *   password recover and reset.
 * - Per account, keyed on the email in the body: failed logins (a correct password is
 *   not held against the account), and recovery emails asked.
 *
 * Exceeding either answers 429 `rate_limited` with `Retry-After`.
 */
export function iamRateLimits(app: FastifyInstance) {
  const limits = app.config.iamRateLimits
  const ipWindow = limits.ipWindowSeconds * 1000
  const accountWindow = limits.accountWindowSeconds * 1000

  // Emails are keyed by their HMAC, so the rate-limit store holds no addresses.
  const accountKey = (kind: string, email: unknown) =>
    `iam:${kind}:${hashOpaqueToken(app.secrets.tokenHmac, `rate-limit:${normalizeEmail(typeof email === 'string' ? email : '')}`)}`

  const loginFailures = app.createRateLimit({
    max: limits.loginFailuresPerAccount,
    timeWindow: accountWindow,
    keyGenerator: (request) => accountKey('login-failures', (request.body as { username?: unknown } | undefined)?.username),
  })
  const recoveries = app.createRateLimit({
    max: limits.recoverPerAccount,
    timeWindow: accountWindow,
    keyGenerator: (request) => accountKey('recover', (request.body as { email?: unknown } | undefined)?.email),
  })

  const tooMany = (ttlMs: number) =>
    new AppError('rate_limited', { headers: { 'retry-after': String(Math.max(1, Math.ceil(ttlMs / 1000))) } })

  return {
    /** Route options limiting a route per client IP. */
    perIp: (max: number) => ({ rateLimit: { max, timeWindow: ipWindow } }),
    loginPerIp: limits.loginPerIp,
    refreshPerIp: limits.refreshPerIp,
    passwordPerIp: limits.passwordPerIp,

    /** preHandler: refuses a login for an account with too many recent failures. */
    async checkLoginFailures(request: FastifyRequest): Promise<void> {
      const state = await loginFailures(request, { increment: false })
      if (!state.isAllowed && state.remaining <= 0) throw tooMany(state.ttl)
    },
    /** Counts one failed login against the account. */
    async countLoginFailure(request: FastifyRequest): Promise<void> {
      await loginFailures(request)
    },
    /** preHandler: counts a recovery request against the account, refusing past the limit. */
    async limitRecoveries(request: FastifyRequest): Promise<void> {
      const state = await recoveries(request)
      if (!state.isAllowed && state.isExceeded) throw tooMany(state.ttl)
    },
  }
}
