import basicAuth from '@fastify/basic-auth'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AffiliateContext, SellerContext } from '../domain/sellers/seller-authenticator.js'
import { AppError } from '../platform/errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The seller of the Basic credentials: the only source of a storefront call's tenant. */
    seller: SellerContext
    /** The affiliate of `X-Affiliate-Code`, or null without the header. */
    affiliate: AffiliateContext | null
  }
}

const MAX_AFFILIATE_CODE = 64

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
  app.decorateRequest('seller', null as unknown as SellerContext)
  app.decorateRequest('affiliate', null)
  const auth = app.sellerAuth
  const refused = () => new AppError('unauthorized', { message: 'The seller id or API key is wrong, or the key was revoked' })

  const affiliateCode = (request: FastifyRequest): string | undefined => {
    const header = request.headers['x-affiliate-code']
    if (header === undefined) return undefined
    const code = Array.isArray(header) ? undefined : header.trim()
    if (!code || code.length > MAX_AFFILIATE_CODE) throw new AppError('invalid_affiliate')
    return code
  }
  const setAffiliate = (request: FastifyRequest, affiliate: AffiliateContext | null) => {
    if (!affiliate) throw new AppError('invalid_affiliate')
    request.affiliate = affiliate
  }

  async function slowPath(request: FastifyRequest, sellerId: string, apiKey: string, seller: SellerContext | undefined) {
    if (!seller) {
      const result = await auth.authenticate(sellerId, apiKey)
      if (!result) throw refused()
      request.seller = seller = result.seller
    }
    const code = affiliateCode(request)
    if (code !== undefined) setAffiliate(request, await auth.resolveAffiliate(seller.id, code))
  }

  await app.register(basicAuth, {
    authenticate: { realm: 'stf' },
    utf8: false,
    validate: (sellerId, apiKey, request, _reply, done) => {
      try {
        const known = auth.authenticateCached(sellerId, apiKey)
        if (known === null) throw refused()
        if (known) {
          request.seller = known.seller
          const code = affiliateCode(request)
          const affiliate = code === undefined ? undefined : auth.resolveAffiliateCached(known.seller.id, code)
          if (code === undefined || affiliate !== undefined) {
            if (affiliate !== undefined) setAffiliate(request, affiliate)
            return done()
          }
        }
        slowPath(request, sellerId, apiKey, known?.seller).then(() => done(), (error: unknown) => done(asServerError(error)))
      } catch (error) {
        done(error as Error)
      }
    },
  })
  app.addHook('onRequest', app.basicAuth)
}
