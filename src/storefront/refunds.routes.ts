import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { withdrawOrder } from '../domain/orders/withdraw-order.js'
import { confirmRefund } from '../domain/payments/confirm-refund.js'
import { errorResponses, ZIdParams } from '../platform/http/schemas.js'
import { storefrontActor } from './actor.js'
import { optionalCustomer } from './customer-auth.js'
import { orderTokenCheck, requireCustomerOrOrderToken } from './order-token-auth.js'
import { ZOrder, ZOrderParams, ZRefund } from './orders.schemas.js'
import { ZConfirmRefundRequest } from './refunds.schemas.js'

const tags = ['storefront']
const sellerOnly = [{ sellerBasic: [] }]
const withCustomer = [{ sellerBasic: [], customerToken: [] }]

/** The buyer's withdrawal and the partner's confirmation of refunds (docs/payments.md). */
export const refundRoutes: FastifyPluginAsyncZod = async (app) => {
  const checkOrderToken = orderTokenCheck(app)

  app.post(
    '/orders/:id/cancel',
    {
      preHandler: [optionalCustomer, checkOrderToken, requireCustomerOrOrderToken],
      schema: {
        tags,
        operationId: 'withdrawOrder',
        summary: 'The buyer withdraws from an order',
        description:
          'Needs `X-Customer-Token` of the order’s customer or the order’s `X-Order-Token` (another’s order: 404; neither: 401). Brazil’s consumer code (art. 49): within the seller’s ' +
          '`withdrawal_days` of the purchase and at least `withdrawal_cutoff_hours` before the earliest ticket’s date (00:00 in the seller’s ' +
          'time zone), the order is `cancelled`, its tickets voided and back on sale, and a `pending` refund of everything left to refund ' +
          'is created for the partner to execute (then POST /refunds/{id}/confirm). Outside that window (or `withdrawal_days` 0): 409 ' +
          '`withdrawal_closed` with `details.until`, the instant it closed (the purchase itself when off). An order awaiting payment ' +
          'simply ends: `cancelled`, nothing to refund. A cancelled order: 409 `order_cancelled`; an expired one: 409 `order_expired`. ' +
          'Webhooks `order.cancelled` and `refund.created`; the buyer is emailed the refund.',
        security: [...withCustomer, { sellerBasic: [], orderToken: [] }],
        params: ZOrderParams,
        response: { 200: ZOrder, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) =>
      withdrawOrder(app.db, {
        codes: app.ticketCodes,
        sellerId: request.seller.id,
        customerId: request.customer?.id ?? null,
        orderTokenHash: request.orderToken,
        affiliateId: request.affiliate?.id,
        orderId: request.params.id,
        settings: request.seller.settings,
        actor: storefrontActor(request),
      }),
  )

  app.post(
    '/refunds/:id/confirm',
    {
      schema: {
        tags,
        operationId: 'confirmRefund',
        summary: 'Confirm a refund executed at the provider',
        description:
          'A pending refund of this seller becomes `done` under the provider’s `reference` (another seller’s: 404): the ledger writes ' +
          'its `refund` row, the order’s `refunded_total` grows, webhook `refund.done`. Confirming a done refund changes nothing and ' +
          'answers it (200).',
        security: sellerOnly,
        params: ZIdParams,
        body: ZConfirmRefundRequest,
        response: { 200: ZRefund, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      confirmRefund(app.db, { refundId: request.params.id, sellerId: request.seller.id, reference: request.body.reference, actor: storefrontActor(request) }),
  )
}
