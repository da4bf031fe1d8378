import basicAuth from '@fastify/basic-auth'
import type { FastifyInstance } from 'fastify'
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
 * Every `/stf/v1` call: HTTP Basic (username = seller id, password = API key), then the
 * optional `X-Affiliate-Code`, which must name an active affiliate of that seller.
 */
export async function registerSellerAuth(app: FastifyInstance) {
  app.decorateRequest('seller', null as unknown as SellerContext)
  app.decorateRequest('affiliate', null)
  await app.register(basicAuth, {
    authenticate: { realm: 'stf' },
    utf8: false,
    validate: async (sellerId, apiKey, request) => {
      const result = await app.sellerAuth.authenticate(sellerId, apiKey)
      if (!result) throw new AppError('unauthorized', { message: 'The seller id or API key is wrong, or the key was revoked' })
      request.seller = result.seller
    },
  })
  app.addHook('onRequest', app.basicAuth)
  app.addHook('onRequest', async (request) => {
    const header = request.headers['x-affiliate-code']
    if (header === undefined) return
    const code = Array.isArray(header) ? undefined : header.trim()
    if (!code || code.length > MAX_AFFILIATE_CODE) throw new AppError('invalid_affiliate')
    const affiliate = await app.sellerAuth.resolveAffiliate(request.seller.id, code)
    if (!affiliate) throw new AppError('invalid_affiliate')
    request.affiliate = affiliate
  })
}
