import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { hashOrderToken, MAX_ORDER_TOKEN_LENGTH } from '../domain/orders/order-tokens.js'
import { orderTokenOpens } from '../domain/orders/orders.repo.js'
import { AppError } from '../platform/errors.js'
import { declareHeaders } from '../platform/http/route-headers.js'
import { UUID_PATTERN } from '../platform/uuid.js'
import { customerRateLimits } from './customer-rate-limits.js'

/**
 * `X-Order-Token`: the token of one order (docs/selling.md), shown once at a guest's checkout and in
 * the buyer's email link. With the seller's Basic credentials it opens that order's reads, images,
 * payments and withdrawal as the customer's token does. Sent, it must be that order's: a wrong,
 * revoked or another order's token answers 404 as an unknown order does (one indexed read either
 * way), and counts like a failed login per `X-End-User-IP` (429 with `Retry-After` past the limit).
 *
 * Usage in a storefront route on `/orders/:id…`:
 * ```ts
 * const checkOrderToken = orderTokenCheck(app)
 * app.get('/orders/:id', { preHandler: checkOrderToken }, async (request) => request.orderToken) // the hash, or null
 * ```
 */
export const ORDER_TOKEN_HEADER = 'x-order-token'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `orderTokenCheck`'s preHandler: the hash of the request's order token once it proved to open the order; null without the header. */
    orderToken: string | null
  }
}

const ZOrderTokenHeader = {
  [ORDER_TOKEN_HEADER]: z
    .string()
    .optional()
    .describe(
      'The order’s token (`order_token` of a guest checkout, or of POST /adm/v1/orders/{id}/order-token): opens this order without a ' +
        'customer token. Not this order’s: 404 as an unknown order, and counted like a failed login per `X-End-User-IP` (429 past the limit).',
    ),
}

/**
 * Declares `X-Order-Token` on each operation whose `security` names `orderToken`, and decorates
 * `request.orderToken`. Register in the storefront scope, before its routes.
 */
export function registerOrderTokenHeader(app: FastifyInstance) {
  app.decorateRequest('orderToken', null)
  declareHeaders(app, (route) => {
    const security = (route.schema as { security?: Record<string, unknown>[] } | undefined)?.security ?? []
    return security.some((requirement) => 'orderToken' in requirement) ? ZOrderTokenHeader : {}
  })
}

const unknownOrder = () => new AppError('not_found')

/**
 * The preHandler of the routes on `/orders/:id…`, made once per route file (its limit is the
 * app's, shared by every file): without `X-Order-Token` it does nothing; with one, the token must
 * open that order of the seller, else 404 (and 429 past the address's limit).
 */
export function orderTokenCheck(app: FastifyInstance) {
  // Made at the first token checked, not when the routes are registered (a route table may be read without a configured app).
  let limits: ReturnType<typeof customerRateLimits> | undefined
  return async function checkOrderToken(request: FastifyRequest): Promise<void> {
    const header = request.headers[ORDER_TOKEN_HEADER]
    if (header === undefined || header === '') return
    limits ??= customerRateLimits(app)
    const orderId = (request.params as { id?: string }).id ?? ''
    request.orderToken = await limits.guardOrderToken(request, async () => {
      // Shapes no token of ours has are refused without reading anything, but counted as any wrong token.
      if (typeof header !== 'string' || header.length > MAX_ORDER_TOKEN_LENGTH || !UUID_PATTERN.test(orderId)) throw unknownOrder()
      const tokenHash = hashOrderToken(app.secrets.tokenHmac, header)
      if (!(await orderTokenOpens(app.db, request.seller.id, orderId, tokenHash))) throw unknownOrder()
      return tokenHash
    })
  }
}

/** preHandler after `optionalCustomer` and `orderTokenCheck`'s: the call needs the order's customer or its token. */
export async function requireCustomerOrOrderToken(request: FastifyRequest): Promise<void> {
  if (request.customer === null && request.orderToken === null) {
    throw new AppError('unauthorized', {
      message: 'This call needs the customer token of the order’s customer (X-Customer-Token) or the order’s token (X-Order-Token)',
    })
  }
}
