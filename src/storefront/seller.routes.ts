import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { errorResponses } from '../platform/http/schemas.js'
import { ZSellerProfile } from './seller.schemas.js'

/** Who the credentials belong to: lets an integrator check its keys and affiliate code. */
export const sellerRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/seller',
    {
      schema: {
        tags: ['storefront'],
        operationId: 'getSellerProfile',
        summary: 'The seller (and affiliate) these credentials act for',
        security: [{ sellerBasic: [] }],
        response: { 200: ZSellerProfile, ...errorResponses(400, 401) },
      },
    },
    async (request) => ({
      id: request.seller.id,
      name: request.seller.name,
      storefront_url: request.seller.storefrontUrl,
      settings: request.seller.settings,
      affiliate: request.affiliate ? { code: request.affiliate.code, name: request.affiliate.name } : null,
    }),
  )
}
