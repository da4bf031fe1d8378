import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { z } from 'zod'
import { accessTokensOf, MAX_TOKEN_LENGTH, registerAccessTokens } from '../platform/auth/access-tokens.js'
import { AppError } from '../platform/errors.js'
import { declareHeaders } from '../platform/http/route-headers.js'
import { UUID_PATTERN } from '../platform/uuid.js'

/**
 * Customer access tokens and the hooks that read them, for every `/stf/v1` route.
 *
 * A customer access token is a JWT, HS256 only, under a key of its own (`secrets.customerJwt`,
 * derived from the root secret and used for nothing else), issuer `boxoffice`, audience
 * `boxoffice:customer`. Claims: `sub` (customer id), `sid` (the seller that issued it),
 * `sess` (its session: the refresh-token family of the sign-in), `email`, `jti`, `iat`, `exp`.
 * A staff token (another key, audience `boxoffice:staff`) never passes for one, nor one for a
 * staff token.
 *
 * It travels in `X-Customer-Token` (`Authorization` carries the seller's Basic credentials)
 * and is valid only with the Basic credentials of the seller that issued it, while its session
 * is live: logout, a password reset, a reused refresh token and the first proof of a squatted
 * inbox end it at once, on every process (`sellerAuth.isCustomerSessionLive`, which keeps live
 * sessions in memory and forgets them when a revocation is announced).
 *
 * Usage in a storefront route:
 * ```ts
 * app.post('/', { preHandler: requireCustomer, schema: {...} }, async (request) => {
 *   const customer = customerOf(request) // { id, email }
 * })
 * ```
 */

export const CUSTOMER_TOKEN_AUDIENCE = 'boxoffice:customer'
export const CUSTOMER_TOKEN_HEADER = 'x-customer-token'
const CUSTOMER_JWT_NAMESPACE = 'customer'

/** The signed-in customer of a storefront call. */
export type CustomerPrincipal = { id: string; email: string }

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `requireCustomer` or `optionalCustomer`; null without a customer token. */
    customer: CustomerPrincipal | null
  }
}

type CustomerClaims = { sub: string; sid: string; sess: string; email: string; jti: string; iat: number; exp: number }

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

/**
 * Registers the `customer` JWT namespace (@fastify/jwt, its own key, algorithm, issuer and
 * audience pinned for signing and verifying) and `request.customer`. Register once at the
 * root, before the route groups, so that the app itself (and a test holding it) can sign.
 */
export const customerAuth = fp(
  async (app: FastifyInstance) => {
    await registerAccessTokens(app, {
      namespace: CUSTOMER_JWT_NAMESPACE,
      secret: app.secrets.customerJwt,
      audience: CUSTOMER_TOKEN_AUDIENCE,
      expiresIn: app.config.ttl.stfAccess,
      claims: ['sub', 'sid', 'sess', 'email', 'jti', 'iat', 'exp'],
      // A storefront sends the same token on every call of a session: a verified token is
      // remembered (by its hash, until it expires, at most 10 minutes) instead of being
      // checked again.
      verify: { cache: 10_000, cacheTTL: 600_000 },
    })
    app.decorateRequest('customer', null)
  },
  { name: 'customer-auth' },
)

const customerJwt = (app: FastifyInstance) => accessTokensOf(app, CUSTOMER_JWT_NAMESPACE)

export type CustomerAccessToken = { token: string; expiresIn: number; expiresAt: Date }

/** Signs an access token for a session of a customer of a seller. */
export function signCustomerAccessToken(
  app: FastifyInstance,
  claims: { customerId: string; sellerId: string; sessionId: string; email: string },
): CustomerAccessToken {
  const iat = Math.floor(Date.now() / 1000)
  const expiresIn = app.config.ttl.stfAccess
  const token = customerJwt(app).sign({
    sub: claims.customerId,
    sid: claims.sellerId,
    sess: claims.sessionId,
    email: claims.email,
    jti: randomUUID(),
    iat,
  })
  return { token, expiresIn, expiresAt: new Date((iat + expiresIn) * 1000) }
}

const invalidToken = () => new AppError('invalid_token', { message: 'The customer token is invalid or has expired' })

/**
 * The customer of the request's `X-Customer-Token`, null when the header is absent or empty.
 * Throws 401 `invalid_token` for a token that is malformed, forged, unsigned, of another
 * algorithm, audience or issuer, expired, issued for another seller than the Basic
 * credentials', or of a session that ended.
 */
async function readCustomer(request: FastifyRequest): Promise<CustomerPrincipal | null> {
  const header = request.headers[CUSTOMER_TOKEN_HEADER]
  if (header === undefined || header === '') return null
  if (typeof header !== 'string' || header.length > MAX_TOKEN_LENGTH || !JWT_SHAPE.test(header)) throw invalidToken()
  let claims: CustomerClaims
  try {
    claims = customerJwt(request.server).verify<CustomerClaims>(header)
  } catch {
    throw invalidToken()
  }
  const sellerId = request.seller?.id
  if (
    !sellerId ||
    claims.sid !== sellerId ||
    typeof claims.sub !== 'string' ||
    !UUID_PATTERN.test(claims.sub) ||
    typeof claims.sess !== 'string' ||
    !UUID_PATTERN.test(claims.sess) ||
    typeof claims.email !== 'string'
  ) {
    throw invalidToken()
  }
  if (!(await request.server.sellerAuth.isCustomerSessionLive(sellerId, claims.sub, claims.sess))) throw invalidToken()
  return { id: claims.sub, email: claims.email }
}

/**
 * preHandler (or onRequest, after the seller's Basic check): the call needs a customer.
 * Missing header: 401 `unauthorized`; invalid or expired token, or another seller's: 401
 * `invalid_token`. Sets `request.customer`.
 */
export async function requireCustomer(request: FastifyRequest): Promise<void> {
  const customer = await readCustomer(request)
  if (!customer) throw new AppError('unauthorized', { message: 'This call needs the customer token (X-Customer-Token)' })
  request.customer = customer
}

/**
 * preHandler: a customer token is optional. Without the header `request.customer` is null;
 * a header that is sent must be valid (401 `invalid_token` otherwise).
 */
export async function optionalCustomer(request: FastifyRequest): Promise<void> {
  request.customer = await readCustomer(request)
}

const ZCustomerTokenHeader = {
  [CUSTOMER_TOKEN_HEADER]: z
    .string()
    .optional()
    .describe(
      "A customer's access token (`access_token` of a sign-in), with the Basic credentials of the seller that issued it. " +
        "Invalid, expired, ended or another seller's: 401 `invalid_token`; missing where the operation needs a customer: 401 `unauthorized`.",
    ),
}

/**
 * Declares `X-Customer-Token` on each operation whose `security` names `customerToken` (as a
 * header parameter too, for clients generated from the document). Register in the storefront
 * scope, before its routes.
 */
export function declareCustomerTokenHeader(app: FastifyInstance) {
  declareHeaders(app, (route) => {
    const security = (route.schema as { security?: Record<string, unknown>[] } | undefined)?.security ?? []
    return security.some((requirement) => 'customerToken' in requirement) ? ZCustomerTokenHeader : {}
  })
}

/** The signed-in customer; 401 `unauthorized` when there is none. */
export function customerOf(request: FastifyRequest): CustomerPrincipal {
  if (!request.customer) throw new AppError('unauthorized', { message: 'This call needs the customer token (X-Customer-Token)' })
  return request.customer
}
