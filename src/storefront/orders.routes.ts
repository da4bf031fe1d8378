import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import QRCode from 'qrcode'
import { z } from 'zod'
import { getOrder } from '../domain/orders/get-order.js'
import { listOrders } from '../domain/orders/list-orders.js'
import { placeOrder } from '../domain/orders/place-order.js'
import { registerTicketDownloads } from '../domain/orders/register-ticket-downloads.js'
import { AppError } from '../platform/errors.js'
import { errorResponses, pageMeta } from '../platform/http/schemas.js'
import { storefrontActor } from './actor.js'
import { ZBasketParams, ZIdempotencyHeaders } from './baskets.schemas.js'
import { optionalCustomer, requireCustomer } from './customer-auth.js'
import {
  ZCheckoutBody,
  ZOrder,
  ZOrderList,
  ZOrderListQuery,
  ZOrderParams,
  ZTicketQrParams,
  ZRegisterTicketDownloadRequest,
  ZRegisterTicketDownloadResponse,
} from './orders.schemas.js'

const tags = ['storefront']
const sellerOnly = [{ sellerBasic: [] }]
const withCustomer = [{ sellerBasic: [], customerToken: [] }]

/** Checkout, the customer's orders and ticket download registration. */
export const orderRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/baskets/:id/checkout',
    {
      // A buyer who holds tickets: served before new baskets while the process is saturated.
      config: { admission: 'first' },
      preHandler: requireCustomer,
      schema: {
        tags,
        operationId: 'checkoutBasket',
        summary: 'Check a basket out',
        description:
          'Needs `X-Customer-Token`. Payment is captured by the partner; the order records method, installments and reference. ' +
          'Turns the holds into sales, redeems the coupons within their limits and issues one ticket per unit. ' +
          'A coupon that no longer applies refuses the checkout with its 422, the code the basket shows as the coupon’s `reason` (remove it with DELETE /baskets/{id}/coupon). ' +
          'With `expected_total`, a total other than what the partner charged: 409 `price_changed`, nothing sold, the hold kept. ' +
          'Empty basket: 422 `basket_empty`; lapsed basket: 410 `basket_expired`; basket already checked out: 409 `basket_checked_out` with `details.order_id`. ' +
          'Honours `Idempotency-Key` (a replay answers the first order).',
        security: withCustomer,
        headers: ZIdempotencyHeaders,
        params: ZBasketParams,
        body: ZCheckoutBody,
        response: { 201: ZOrder, ...errorResponses(400, 401, 404, 409, 410, 422) },
      },
    },
    async (request, reply) => {
      const { body, replayed } = await placeOrder(app.db, {
        codes: app.ticketCodes,
        sellerId: request.seller.id,
        affiliate: request.affiliate,
        basketId: request.params.id,
        customerId: request.customer!.id,
        settings: request.seller.settings,
        paymentMethod: request.body.payment_method,
        installments: request.body.installments,
        paymentReference: request.body.payment_reference,
        expectedTotal: request.body.expected_total,
        idempotencyKey: request.headers['idempotency-key'],
        actor: storefrontActor(request),
      })
      if (replayed) reply.header('idempotent-replayed', 'true')
      return reply.code(201).send(body)
    },
  )

  app.get(
    '/orders',
    {
      preHandler: requireCustomer,
      schema: {
        tags,
        operationId: 'listCustomerOrders',
        summary: "The customer's orders",
        description: 'Needs `X-Customer-Token`. Newest first; under `X-Affiliate-Code` only the orders placed under that code.',
        security: withCustomer,
        querystring: ZOrderListQuery,
        response: { 200: ZOrderList, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { data, total } = await listOrders(app.db, {
        codes: app.ticketCodes,
        sellerId: request.seller.id,
        customerId: request.customer!.id,
        affiliateId: request.affiliate?.id,
        page: request.query.page,
        limit: request.query.limit,
      })
      return { data, meta: pageMeta(request.query, data.length, total) }
    },
  )

  app.get(
    '/orders/:id',
    {
      preHandler: optionalCustomer,
      schema: {
        tags,
        operationId: 'getOrder',
        summary: 'Read an order',
        description: 'An order of this seller; under `X-Affiliate-Code` only one placed under that code; with `X-Customer-Token` only one of that customer.',
        security: [...sellerOnly, ...withCustomer],
        params: ZOrderParams,
        response: { 200: ZOrder, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      getOrder(app.db, {
        codes: app.ticketCodes,
        sellerId: request.seller.id,
        affiliate: request.affiliate,
        customerId: request.customer?.id ?? null,
        orderId: request.params.id,
      }),
  )

  app.get(
    '/orders/:id/tickets/:identifier/qr.svg',
    {
      schema: {
        tags,
        operationId: 'getTicketQr',
        summary: "A ticket's QR code, as SVG",
        description:
          'The ticket’s signed `code` as a QR image (`image/svg+xml`), for a ticket page or an email: one `<img>`. An order of this seller ' +
          '(under `X-Affiliate-Code`, of that affiliate); an identifier it does not have: 404. A voided ticket still renders: gates refuse it.',
        security: sellerOnly,
        params: ZTicketQrParams,
        response: { 200: z.string().describe('An SVG document'), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const order = await getOrder(app.db, {
        codes: app.ticketCodes,
        sellerId: request.seller.id,
        affiliate: request.affiliate,
        customerId: null,
        orderId: request.params.id,
      })
      const ticket = order.tickets.find((t) => t.identifier === request.params.identifier)
      if (!ticket) throw new AppError('not_found', { message: 'The order has no ticket with this identifier' })
      const svg = await QRCode.toString(ticket.code, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
      return reply
        .type('image/svg+xml')
        .header('cache-control', 'private, max-age=3600')
        .serializer((payload: unknown) => payload as string)
        .send(svg)
    },
  )

  app.post(
    '/tickets/downloads',
    {
      schema: {
        tags,
        operationId: 'registerTicketDownloads',
        summary: 'Register ticket downloads',
        description:
          '`registered`: how many of the identifiers belong to the order; `first_access`: those retrieved for the first time by this call; ' +
          '`unknown`: those not in the order; `voided`: those of the order that are voided, never registered. Another seller’s order, or a `user_id` other than the order’s customer: 404. Every call is kept for audit.',
        security: sellerOnly,
        body: ZRegisterTicketDownloadRequest,
        response: { 200: ZRegisterTicketDownloadResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      registerTicketDownloads(app.db, {
        codes: app.ticketCodes,
        sellerId: request.seller.id,
        affiliate: request.affiliate,
        orderId: request.body.order_id,
        identifiers: request.body.identifiers,
        source: request.body.source,
        userId: request.body.user_id,
        traceId: request.id,
      }),
  )
}
