import type { FastifyInstance, FastifyRequest } from 'fastify'
import { addressKey, emailKey, guardLogin } from '../platform/http/rate-limits.js'

type Hook = (request: FastifyRequest) => Promise<void>

/**
 * Limits on the customer authentication routes, against password guessing and mail bombing
 * (`config.stfRateLimits`; counted in Redis when `REDIS_URL` is set). Every counter is per
 * seller, since an email names a customer of one seller only:
 *
 * - per client address, as `onRequest` hooks (before the body is parsed): login; refresh; the
 *   calls that send an email (register, forgot-password, magic-link, one counter); the calls
 *   that consume an emailed token (reset-password, magic-link/verify, verify-email, one counter).
 *   Storefront calls come from the partner's backend, so every customer of a seller shares its
 *   connection address. The address is therefore the end user's, as `X-End-User-IP` gives it
 *   (the seller vouches for it with its credentials); without the header, the connection's,
 *   with limits `limitFactorWithoutEndUserIp` times higher, so that one abusive visitor cannot
 *   lock every other customer out: the per-email limits do the protecting then.
 * - per email named in the body: login attempts (counted before the password is checked, and
 *   forgiven when it was right), and the emails asked by forgot-password, magic-link and
 *   verify-email/resend together (counted before any work).
 *
 * Beyond a limit: 429 `rate_limited` with `Retry-After` in seconds.
 */
export function customerRateLimits(app: FastifyInstance) {
  const limits = app.config.stfRateLimits
  const window = limits.windowSeconds

  /** The limit and key of a call's address: the end user's (`X-End-User-IP`), else the connection's at a higher limit. */
  const addressLimit = (name: string, max: number) => {
    const endUser = app.limits.define(`stf-${name}-end-user`, max, window)
    const connection = app.limits.define(`stf-${name}-connection`, max * limits.limitFactorWithoutEndUserIp, window)
    return (request: FastifyRequest) => {
      const { endUserIp } = request
      return { limit: endUserIp ? endUser : connection, key: `${request.seller.id}:${addressKey(endUserIp ?? request.ip)}` }
    }
  }

  const perAddress = (name: string, max: number): Hook => {
    const limitOf = addressLimit(name, max)
    return async function limitPerAddress(request) {
      const { limit, key } = limitOf(request)
      await limit.hit(key)
    }
  }
  const orderTokenLimit = addressLimit('order-token', limits.loginPerIp)
  const transferTokenLimit = addressLimit('transfer-token', limits.loginPerIp)

  // Emails are keyed by their HMAC, so the limit store holds none.
  const bodyEmailKey = (request: FastifyRequest) =>
    `${request.seller.id}:${emailKey(app.secrets.tokenHmac, (request.body as { email?: unknown } | undefined)?.email)}`
  const loginAttempts = app.limits.define('stf-login-email', limits.loginPerEmail, window)
  const emailsAsked = app.limits.define('stf-email-email', limits.emailPerEmail, window)

  return {
    loginPerIp: perAddress('login', limits.loginPerIp),
    emailPerIp: perAddress('email', limits.emailPerIp),
    refreshPerIp: perAddress('refresh', limits.refreshPerIp),
    tokenPerIp: perAddress('token', limits.tokenPerIp),
    /** Joining a waiting list (which emails an offer later), per address like registration, with its limit. */
    joinPerIp: perAddress('waiting-list', limits.emailPerIp),
    emailPerEmail: async (request: FastifyRequest) => emailsAsked.hit(bodyEmailKey(request)),

    /** Runs a password login within the email's limit. */
    guardLogin: <T>(request: FastifyRequest, login: () => Promise<T>): Promise<T> => guardLogin(loginAttempts, bodyEmailKey(request), login),

    /**
     * Checks an `X-Order-Token` within the address's limit, as a password login is checked: each
     * attempt counted first, forgiven when the token was right; a wrong one ends as `check` throws
     * (the unknown order's 404), and past the limit every attempt is 429 with `Retry-After`.
     */
    guardOrderToken: <T>(request: FastifyRequest, check: () => Promise<T>): Promise<T> => {
      const { limit, key } = orderTokenLimit(request)
      return guardLogin(limit, key, check)
    },

    /** Answers a transfer's token (accept, decline) within the address's limit, as `guardOrderToken` checks an order's. */
    guardTransferToken: <T>(request: FastifyRequest, answer: () => Promise<T>): Promise<T> => {
      const { limit, key } = transferTokenLimit(request)
      return guardLogin(limit, key, answer)
    },
  }
}
