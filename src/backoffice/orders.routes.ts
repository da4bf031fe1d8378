import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { cancelOrder } from '../domain/orders/cancel-order.js'
import { getOrder } from '../domain/orders/get-order.js'
import { listOrders } from '../domain/orders/list-orders.js'
import { voidTicket } from '../domain/orders/void-ticket.js'
import { findSellerById } from '../domain/sellers/sellers.repo.js'
import { auditActorOf } from '../domain/staff/actor.js'
import { requirePermission, staffActorOf } from '../iam/staff-auth.js'
import { AppError } from '../platform/errors.js'
import { errorResponses, pageMeta, ZIdParams } from '../platform/http/schemas.js'
import { ZAdmOrder, ZAdmOrderList, ZAdmOrderListQuery, ZOrderTicketParams, ZOrderToken } from './orders.schemas.js'
import { reissueOrderToken } from '../domain/orders/reissue-order-token.js'
import { actorOf } from './staff-actor.js'

const tags = ['backoffice']
const security = [{ staffBearer: [] }]

/** `/adm/v1` orders: read with `adm.orders.read`, cancel them or void single tickets with `adm.orders.write`. */
export const orderRoutes: FastifyPluginAsyncZod = async (app) => {
  const read = requirePermission('adm.orders.read')
  const write = requirePermission('adm.orders.write')

  app.get(
    '/sellers/:id/orders',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admListOrders',
        summary: "List a seller's orders",
        description: 'Needs `adm.orders.read`. Newest first; filter by `affiliate_code` and `status`.',
        security,
        params: ZIdParams,
        querystring: ZAdmOrderListQuery,
        response: { 200: ZAdmOrderList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      if (!(await findSellerById(app.db, request.params.id))) throw new AppError('not_found')
      const { data, total } = await listOrders(app.db, {
        codes: app.ticketCodes,
        sellerId: request.params.id,
        affiliateCode: request.query.affiliate_code,
        status: request.query.status,
        page: request.query.page,
        limit: request.query.limit,
        documents: 'whole',
      })
      return { data, meta: pageMeta(request.query, data.length, total) }
    },
  )

  app.get(
    '/orders/:id',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admGetOrder',
        summary: 'Read an order',
        description: 'Needs `adm.orders.read`.',
        security,
        params: ZIdParams,
        response: { 200: ZAdmOrder, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      getOrder(app.db, {
        codes: app.ticketCodes,
        sellerId: null,
        affiliate: null,
        customerId: null,
        orderId: request.params.id,
        documents: 'whole',
      }),
  )

  app.post(
    '/orders/:id/cancel',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admCancelOrder',
        summary: 'Cancel an order',
        description:
          'Needs `adm.orders.write`. Returns the tickets to availability, voids them and releases the coupon uses. ' +
          'A paid (`confirmed`) order is `cancelled` with a `pending` refund of what is left to refund (when anything is; POST ' +
          '/refunds/{id}/confirm once executed), and the ledger voids its tickets; an order awaiting payment (`pending`) simply ends, ' +
          'with no refund and nothing in the ledger. Cancelling a cancelled or expired order changes nothing and answers it again (200). ' +
          'Webhooks `order.cancelled` (and `refund.created`); the buyer is emailed the refund.',
        security,
        params: ZIdParams,
        response: { 200: ZAdmOrder, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => (await cancelOrder(app.db, { codes: app.ticketCodes, orderId: request.params.id, actor: auditActorOf(staffActorOf(request)) })).order,
  )

  app.post(
    '/orders/:id/order-token',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admReissueOrderToken',
        summary: 'Issue a new token for an order',
        description:
          'Needs `adm.orders.write`. A new `order_token` (shown this once) that opens the order as `X-Order-Token`; the old one ' +
          'opens nothing from now on. The buyer is emailed the new link, `{storefront_url}/orders/{id}?token=`. Any order, a guest’s or a customer’s.',
        security,
        params: ZIdParams,
        response: { 201: ZOrderToken, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await reissueOrderToken(app.db, { orderId: request.params.id, tokenHmac: app.secrets.tokenHmac, actor: actorOf(request) })),
  )

  app.post(
    '/orders/:id/tickets/:identifier/void',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admVoidTicket',
        summary: 'Void one ticket',
        description:
          'Needs `adm.orders.write`. Voids the ticket (downloads no longer register it) and returns it to availability; the ' +
          "order's totals stay as charged (POST /orders/{id}/refunds gives money back). On a paid order the ledger writes its " +
          '`void` row. Answers the order. Voiding a voided ticket (or one of a cancelled or expired order) changes nothing and answers ' +
          'the order again (200). An identifier the order does not have: 404. A ticket of an order awaiting payment: 409 ' +
          '`order_pending` (cancel the order instead).',
        security,
        params: ZOrderTicketParams,
        response: { 200: ZAdmOrder, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      (
        await voidTicket(app.db, {
          codes: app.ticketCodes,
          orderId: request.params.id,
          identifier: request.params.identifier,
          actor: auditActorOf(staffActorOf(request)),
        })
      ).order,
  )
}
