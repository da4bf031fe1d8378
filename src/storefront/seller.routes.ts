import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { LOCALES } from '../domain/sellers/seller-settings.js'
import { errorResponses } from '../platform/http/schemas.js'

const ZSellerProfile = z
  .object({
    id: z.uuid(),
    name: z.string(),
    storefront_url: z.string(),
    settings: z.object({
      basket_ttl_seconds: z.number().int(),
      max_installments: z.number().int(),
      interest_free_installments: z.number().int(),
      monthly_rate: z.number(),
      min_installment_amount: z.number().int(),
      timezone: z.string().describe('IANA time zone of the seller\'s "today": inventories dated before it are not sold'),
      waiting_list_offer_minutes: z.number().int().describe('How long a waiting list offer holds its tickets'),
      waiting_list_max_quantity: z.number().int().describe('Most tickets one waiting list entry may ask for'),
      locale: z.enum(LOCALES).describe('Language of what buyers read: the emails, the seat map and the PDF ticket'),
    }),
    affiliate: z.object({ code: z.string(), name: z.string() }).nullable(),
  })
  .meta({ id: 'SellerProfile' })

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
