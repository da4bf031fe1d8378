import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { getStorefrontSeatingPlan } from '../domain/seating/get-storefront-seating-plan.js'
import { errorResponses, ZIdParams } from '../platform/http/schemas.js'
import { toSeatingPlanWithPlan, ZSeatingPlanWithPlan } from './seating-plans.schemas.js'

/** `/stf/v1/seating-plans/{id}`: the layout a storefront draws its seat picker from (docs/seating.md). */
export const seatingPlanRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/seating-plans/:id',
    {
      schema: {
        tags: ['storefront'],
        operationId: 'getSeatingPlan',
        summary: 'A seating plan, with its document',
        description:
          "A plan that an inventory of one of the seller's published events uses (of the affiliate's events under `X-Affiliate-Code`); " +
          'any other plan: 404. Plans never change: a new layout is a new plan, with a new id.',
        security: [{ sellerBasic: [] }],
        params: ZIdParams,
        response: { 200: ZSeatingPlanWithPlan, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      toSeatingPlanWithPlan(
        await getStorefrontSeatingPlan(app.db, { sellerId: request.seller.id, planId: request.params.id, scope: request.affiliate?.eventIds ?? null }),
      ),
  )
}
