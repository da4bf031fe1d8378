import type { FastifyInstance, FastifyRequest } from 'fastify'
import { isKnownAddress } from '../domain/staff/sessions.repo.js'
import { hashOpaqueToken } from '../platform/auth/opaque-token.js'
import { addressKey, emailKey, guardLogin } from '../platform/http/rate-limits.js'

/**
 * Limits on the unauthenticated staff routes, against password guessing, token guessing
 * and mail bombing (`config.iamRateLimits`; counted in Redis when `REDIS_URL` is set).
 *
 * - Per client IP, as `onRequest` hooks (before the body is even parsed): login, refresh,
 *   password recover, password reset.
 * - Per account, keyed on the email in the body: login attempts (`guardLogin`) and recovery
 *   emails. Past the login limit the account is locked for strangers, not for its owner: the
 *   right password from an address that signed in to the account within 30 days is still
 *   accepted, and ends the lock.
 *
 * Exceeding a limit answers 429 `rate_limited` with `Retry-After`.
 */
export function iamRateLimits(app: FastifyInstance) {
  const limits = app.config.iamRateLimits
  const { tokenHmac } = app.secrets

  const perIp = (name: string, max: number) => {
    const limit = app.limits.define(`iam-${name}-ip`, max, limits.ipWindowSeconds)
    return async function limitPerIp(request: FastifyRequest) {
      await limit.hit(addressKey(request.ip))
    }
  }
  // Emails and addresses are keyed by their HMAC, so neither the limit store nor the database holds them.
  const accountKey = (email: unknown) => emailKey(tokenHmac, email)
  const loginAttempts = app.limits.define('iam-login-account', limits.loginFailuresPerAccount, limits.accountWindowSeconds)
  const recoveries = app.limits.define('iam-recover-account', limits.recoverPerAccount, limits.accountWindowSeconds)
  /** The keyed hash under which a client address is remembered for the account it signs in to. */
  const addressHash = (request: FastifyRequest) => hashOpaqueToken(tokenHmac, `staff-address:${addressKey(request.ip)}`)

  return {
    loginPerIp: perIp('login', limits.loginPerIp),
    refreshPerIp: perIp('refresh', limits.refreshPerIp),
    recoverPerIp: perIp('recover', limits.passwordPerIp),
    resetPerIp: perIp('reset', limits.passwordPerIp),

    addressHash,

    /** Runs a password login for `email` within the account's limit; a locked account still lets its owner's addresses in. */
    guardLogin: <T>(request: FastifyRequest, email: string, login: () => Promise<T>): Promise<T> =>
      guardLogin(loginAttempts, accountKey(email), login, () => isKnownAddress(app.db, email, addressHash(request))),

    /** preHandler: counts a recovery request against the account, refusing past the limit. */
    async limitRecoveries(request: FastifyRequest): Promise<void> {
      await recoveries.hit(accountKey((request.body as { email?: unknown } | undefined)?.email))
    },
  }
}
