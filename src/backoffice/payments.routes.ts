import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { payOrder } from '../domain/payments/pay-order.js'
import { auditActorOf } from '../domain/staff/actor.js'
import { requirePermission, staffActorOf } from '../iam/staff-auth.js'
import { errorResponses, ZIdParams } from '../platform/http/schemas.js'
import { ZPayment } from '../storefront/orders.schemas.js'
import { PAYMENT_DESCRIPTION, ZPaymentBody } from '../storefront/payments.schemas.js'

/** `/adm/v1` payments: money the seller received itself (docs/payments.md), with `adm.orders.write`. */
export const paymentRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/orders/:id/payments',
    {
      onRequest: requirePermission('adm.orders.write'),
      schema: {
        tags: ['backoffice'],
        operationId: 'admPayOrder',
        summary: 'Record a payment of an order',
        description: `Needs \`adm.orders.write\`. ${PAYMENT_DESCRIPTION}`,
        security: [{ staffBearer: [] }],
        params: ZIdParams,
        body: ZPaymentBody,
        response: { 200: ZPayment, 201: ZPayment, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const { payment, created } = await payOrder(app.db, {
        codes: app.ticketCodes,
        orderId: request.params.id,
        sellerId: null,
        affiliate: null,
        ...request.body,
        actor: auditActorOf(staffActorOf(request)),
      })
      return reply.code(created ? 201 : 200).send(payment)
    },
  )
}
