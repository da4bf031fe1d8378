import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { payOrder } from '../domain/payments/pay-order.js'
import { errorResponses } from '../platform/http/schemas.js'
import { storefrontActor } from './actor.js'
import { orderTokenCheck } from './order-token-auth.js'
import { ZOrderParams, ZPayment } from './orders.schemas.js'
import { PAYMENT_DESCRIPTION, ZPaymentBody } from './payments.schemas.js'

/** Paying an order that awaits payment (docs/payments.md). */
export const paymentRoutes: FastifyPluginAsyncZod = async (app) => {
  const checkOrderToken = orderTokenCheck(app)

  app.post(
    '/orders/:id/payments',
    {
      preHandler: checkOrderToken,
      schema: {
        tags: ['storefront'],
        operationId: 'payOrder',
        summary: 'Pay an order',
        description: `${PAYMENT_DESCRIPTION} An order of this seller (under \`X-Affiliate-Code\`, of that affiliate; with \`X-Order-Token\`, the one it opens), else 404.`,
        security: [{ sellerBasic: [] }, { sellerBasic: [], orderToken: [] }],
        params: ZOrderParams,
        body: ZPaymentBody,
        response: { 200: ZPayment, 201: ZPayment, ...errorResponses(400, 401, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const { payment, created } = await payOrder(app.db, {
        codes: app.ticketCodes,
        orderId: request.params.id,
        sellerId: request.seller.id,
        affiliate: request.affiliate,
        orderTokenHash: request.orderToken,
        ...request.body,
        actor: storefrontActor(request),
      })
      return reply.code(created ? 201 : 200).send(payment)
    },
  )
}
