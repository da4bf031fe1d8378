import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { getCustomer } from '../domain/customers/get-customer.js'
import { errorResponses } from '../platform/http/schemas.js'
import { ZCustomer, presentCustomer } from './auth.schemas.js'
import { customerOf, requireCustomer } from './customer-auth.js'

/** `GET /stf/v1/me`: the signed-in customer. */
export const meRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/me',
    {
      preHandler: requireCustomer,
      schema: {
        tags: ['storefront'],
        operationId: 'getCurrentCustomer',
        summary: 'The signed-in customer',
        description:
          'Needs `X-Customer-Token` with the Basic credentials of the seller that issued it: missing, 401 `unauthorized`; ' +
          "invalid, expired or another seller's, 401 `invalid_token`.",
        security: [{ sellerBasic: [], customerToken: [] }],
        response: { 200: ZCustomer, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      return presentCustomer(await getCustomer(app.db, request.seller.id, customerOf(request).id))
    },
  )
}
