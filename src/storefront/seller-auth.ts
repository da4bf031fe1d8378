import basicAuth from '@fastify/basic-auth'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AffiliateContext, KeyEntry, SellerContext } from '../domain/sellers/seller-authenticator.js'
import { z } from 'zod'
import { AppError } from '../platform/errors.js'
import { declareHeaders } from '../platform/http/route-headers.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The seller of the Basic credentials: the only source of a storefront call's tenant. */
    seller: SellerContext
    /** The affiliate of `X-Affiliate-Code`, or null without the header. */
    affiliate: AffiliateContext | null
  }
}

const MAX_AFFILIATE_CODE = 64

/** `X-Affiliate-Code`, for the document: the hook below checks it before any validation runs. */
const ZAffiliateCodeHeader = {
  'x-affiliate-code': z
    .string()
    .optional()
    .describe(
      "Attributes the call to this affiliate of the seller (any case): listings show only the events it may sell, a basket opened under it belongs to it and answers only with it, orders record it. Not an active affiliate's code: 400 `invalid_affiliate`.",
    ),
}

/**
 * basic-auth answers 401 for an error without a status: a failure that is not a refusal (a
 * database error while looking an affiliate up) must stay a server error.
 */
const asServerError = (error: unknown): Error =>
  error instanceof AppError ? error : Object.assign(error instanceof Error ? error : new Error(String(error)), { statusCode: 500 })

/**
 * Every `/stf/v1` call: HTTP Basic (username = seller id, password = API key), then the
 * optional `X-Affiliate-Code`, which must name an active affiliate of that seller. Both in one
 * hook that stays synchronous while the answers are in memory: this runs on every call.
 */
export async function registerSellerAuth(app: FastifyInstance) {
  declareHeaders(app, () => ZAffiliateCodeHeader)
  app.decorateRequest('seller', null as unknown as SellerContext)
  app.decorateRequest('affiliate', null)
  const auth = app.sellerAuth
  const refused = () => new AppError('unauthorized', { message: 'The seller id or API key is wrong, or the key was revoked' })

  /** Sets the affiliate, or answers the refusal for a code that names none. */
  const attach = (request: FastifyRequest, affiliate: AffiliateContext | null): AppError | undefined => {
    if (!affiliate) return new AppError('invalid_affiliate')
    request.affiliate = affiliate
    return undefined
  }

  /**
   * Then the optional `X-Affiliate-Code`: from the credentials' entry when it holds this exact
   * header, else from the affiliate memory, else from the database.
   */
  function resolveAffiliate(request: FastifyRequest, done: (error?: Error) => void, entry?: KeyEntry) {
    const header = request.headers['x-affiliate-code']
    if (header === undefined) return done()
    if (typeof header !== 'string') return done(new AppError('invalid_affiliate'))
    const asSent = entry && auth.affiliateAsSent(entry, header)
    if (asSent !== undefined) return done(attach(request, asSent))
    const code = header.trim()
    if (!code || code.length > MAX_AFFILIATE_CODE) return done(new AppError('invalid_affiliate'))
    const cached = auth.resolveAffiliateCached(request.seller.id, code)
    if (cached !== undefined) {
      // Not a header padded out to kilobytes: kept are at most a few short strings per entry.
      if (entry && header.length <= MAX_AFFILIATE_CODE) auth.rememberAffiliateAsSent(entry, header, cached)
      return done(attach(request, cached))
    }
    auth.resolveAffiliate(request.seller.id, code).then(
      (affiliate) => done(attach(request, affiliate)),
      (error: unknown) => done(asServerError(error)),
    )
  }

  // Headers not verified before: parsed and checked by @fastify/basic-auth (its 401 and challenge).
  await app.register(basicAuth, {
    authenticate: { realm: 'stf' },
    utf8: false,
    validate: (sellerId, apiKey, request, _reply, done) => {
      auth.authenticate(request.headers.authorization!, sellerId, apiKey).then(
        (result) => {
          if (!result) return done(refused())
          request.seller = result.seller
          resolveAffiliate(request, done)
        },
        (error: unknown) => done(asServerError(error)),
      )
    },
  })
  // A header verified before is answered from memory without parsing it again.
  app.addHook('onRequest', (request, reply, done) => {
    const known = auth.authenticateCached(request.headers.authorization)
    if (known === undefined) return app.basicAuth(request, reply, done)
    request.seller = known.seller
    resolveAffiliate(request, done, known)
  })
}
