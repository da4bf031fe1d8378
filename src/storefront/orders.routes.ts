import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { getOrder } from '../domain/orders/get-order.js'
import { listOrders } from '../domain/orders/list-orders.js'
import { placeOrder, type Buyer } from '../domain/orders/place-order.js'
import { newOrderToken } from '../domain/orders/order-tokens.js'
import { printOrderTickets } from '../domain/orders/print-order-tickets.js'
import { registerTicketDownloads } from '../domain/orders/register-ticket-downloads.js'
import { qrPng, qrSvg } from '../domain/orders/ticket-images.js'
import type { AffiliateContext } from '../domain/sellers/seller-authenticator.js'
import { AppError } from '../platform/errors.js'
import { errorResponses, pageMeta } from '../platform/http/schemas.js'
import { storefrontActor } from './actor.js'
import { ZBasketParams, ZIdempotencyHeaders } from './baskets.schemas.js'
import { optionalCustomer, requireCustomer } from './customer-auth.js'
import { orderTokenCheck } from './order-token-auth.js'
import { sendSvg, ZSvgDocument } from '../platform/http/svg-reply.js'
import {
  ZCheckoutBody,
  ZOrder,
  ZOrderList,
  ZOrderListQuery,
  ZOrderParams,
  ZPlacedOrder,
  ZTicketPngQuery,
  ZTicketQrParams,
  ZRegisterTicketDownloadRequest,
  ZRegisterTicketDownloadResponse,
} from './orders.schemas.js'

const tags = ['storefront']

/** The buyer of a checkout without a customer token: the body's, when the seller sells to guests. */
function guestOf(guestCheckout: boolean, buyer: Buyer | undefined): Buyer {
  if (!guestCheckout)
    throw new AppError('unauthorized', { message: 'This call needs the customer token (X-Customer-Token): this seller does not sell to guests' })
  if (!buyer) throw new AppError('validation_error', { details: [{ path: 'buyer', message: 'is required without X-Customer-Token (a guest’s checkout)' }] })
  return buyer
}
const sellerOnly = [{ sellerBasic: [] }]
const withCustomer = [{ sellerBasic: [], customerToken: [] }]
const withOrderToken = [{ sellerBasic: [], orderToken: [] }]

/** Checkout, the customer's orders and ticket download registration. */
export const orderRoutes: FastifyPluginAsyncZod = async (app) => {
  const checkOrderToken = orderTokenCheck(app)

  app.post(
    '/baskets/:id/checkout',
    {
      // A buyer who holds tickets: served before new baskets while the process is saturated.
      config: { admission: 'first' },
      preHandler: optionalCustomer,
      schema: {
        tags,
        operationId: 'checkoutBasket',
        summary: 'Check a basket out',
        description:
          'With `X-Customer-Token`, the customer’s order. Without it, a guest’s (the seller’s `guest_checkout`, on by default, ' +
          'else 401 `unauthorized`): `buyer: {email, name}` is required (400 without), the order has `customer_id: null`, and the answer ' +
          'carries its `order_token` (shown once; also in the link emailed to the buyer) that opens the order as `X-Order-Token`. When an ' +
          'account of the seller later proves it controls that email (verification, magic link, password reset), the guest’s orders join it. ' +
          'Payment is captured by the partner; the order records method, installments and reference. ' +
          'Turns the holds into sales, redeems the coupons within their limits and issues one ticket per unit. ' +
          'A coupon that no longer applies refuses the checkout with its 422, the code the basket shows as the coupon’s `reason` (remove it with DELETE /baskets/{id}/coupon). ' +
          'With `expected_total`, a total other than what the partner charged: 409 `price_changed`, nothing sold, the hold kept. ' +
          'Empty basket: 422 `basket_empty`; lapsed basket: 410 `basket_expired`; basket already checked out: 409 `basket_checked_out` with `details.order_id`. ' +
          'With `await_payment: true` the order is `pending`: its tickets are taken as sold ones are, without codes, until ' +
          '`payment_due_at`; POST /orders/{id}/payments confirms it, else it expires and its tickets go back on sale. ' +
          'Honours `Idempotency-Key` (a replay answers the first order).',
        security: [...withCustomer, ...sellerOnly],
        headers: ZIdempotencyHeaders,
        params: ZBasketParams,
        body: ZCheckoutBody,
        response: { 201: ZPlacedOrder, ...errorResponses(400, 401, 404, 409, 410, 422) },
      },
    },
    async (request, reply) => {
      const guest = request.customer === null ? guestOf(request.seller.settings.guest_checkout, request.body.buyer) : undefined
      const orderToken = guest && newOrderToken(app.secrets.tokenHmac)
      const { body, replayed } = await placeOrder(app.db, {
        codes: app.ticketCodes,
        sellerId: request.seller.id,
        affiliate: request.affiliate,
        basketId: request.params.id,
        customerId: request.customer?.id ?? null,
        buyer: guest,
        orderToken,
        settings: request.seller.settings,
        paymentMethod: request.body.payment_method,
        installments: request.body.installments,
        paymentReference: request.body.payment_reference,
        awaitPayment: request.body.await_payment,
        paymentMinutes: request.seller.settings.payment_minutes,
        expectedTotal: request.body.expected_total,
        idempotencyKey: request.headers['idempotency-key'],
        actor: storefrontActor(request),
        holds: app.holds,
      })
      if (replayed) reply.header('idempotent-replayed', 'true')
      return reply.code(201).send(orderToken && !replayed ? { ...body, order_token: orderToken.token } : body)
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
      preHandler: [optionalCustomer, checkOrderToken],
      schema: {
        tags,
        operationId: 'getOrder',
        summary: 'Read an order',
        description:
          'An order of this seller; under `X-Affiliate-Code` only one placed under that code; with `X-Customer-Token` only one of that customer; ' +
          'with `X-Order-Token` only the order it opens (another’s, a revoked or a wrong one: 404, counted per `X-End-User-IP`, 429 past the limit).',
        security: [...sellerOnly, ...withCustomer, ...withOrderToken],
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
        orderTokenHash: request.orderToken,
        orderId: request.params.id,
      }),
  )

  /** The ticket of an order of this seller (and affiliate), with its code; 404 for any other. */
  const ticketOf = async (request: {
    seller: { id: string }
    affiliate: AffiliateContext | null
    orderToken: string | null
    params: { id: string; identifier: string }
  }) => {
    const order = await getOrder(app.db, {
      codes: app.ticketCodes,
      sellerId: request.seller.id,
      affiliate: request.affiliate,
      customerId: null,
      orderTokenHash: request.orderToken,
      orderId: request.params.id,
    })
    const ticket = order.tickets.find((t) => t.identifier === request.params.identifier)
    if (!ticket) throw new AppError('not_found', { message: 'The order has no ticket with this identifier' })
    if (ticket.status === 'transferred') {
      throw new AppError('ticket_voided', { message: 'This ticket was transferred: its code is revoked', details: { status: ticket.status } })
    }
    if (ticket.code === null) throw new AppError('order_pending')
    return { ...ticket, code: ticket.code }
  }

  app.get(
    '/orders/:id/tickets/:identifier/qr.svg',
    {
      preHandler: checkOrderToken,
      schema: {
        tags,
        operationId: 'getTicketQr',
        summary: "A ticket's QR code, as SVG",
        description:
          'The ticket’s signed `code` as a QR image (`image/svg+xml`; error correction M, a 4-module quiet zone), for a ticket page: one `<img>`. ' +
          'An order of this seller (under `X-Affiliate-Code`, of that affiliate); an identifier it does not have: 404. A voided ticket still renders: gates refuse it. A ticket of an order not paid (`pending`, `expired`) has no code: 409 `order_pending`; a ticket transferred away: 409 `ticket_voided`.',
        security: [...sellerOnly, ...withOrderToken],
        params: ZTicketQrParams,
        response: { 200: ZSvgDocument, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const svg = await qrSvg((await ticketOf(request)).code)
      return sendSvg(reply, svg, 'private, max-age=3600')
    },
  )

  app.get(
    '/orders/:id/tickets/:identifier/qr.png',
    {
      preHandler: checkOrderToken,
      schema: {
        tags,
        operationId: 'getTicketQrPng',
        summary: "A ticket's QR code, as PNG",
        description:
          'The ticket’s signed `code` as a QR image (`image/png`, `size` × `size` pixels, quiet zone included; error correction M, a ' +
          '4-module quiet zone), for an email: Gmail and Outlook show no SVG. Same access rules as qr.svg.',
        security: [...sellerOnly, ...withOrderToken],
        params: ZTicketQrParams,
        querystring: ZTicketPngQuery,
        response: { 200: z.string().describe('A PNG image').meta({ contentMediaType: 'image/png' }), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const png = await qrPng((await ticketOf(request)).code, request.query.size)
      return reply
        .type('image/png')
        .header('cache-control', 'private, max-age=3600')
        .send(png as unknown as string) // a Buffer goes out as it is, never through the serializer
    },
  )

  app.get(
    '/orders/:id/tickets.pdf',
    {
      preHandler: checkOrderToken,
      schema: {
        tags,
        operationId: 'getOrderTicketsPdf',
        summary: "An order's tickets, as PDF",
        description:
          'One A5 page per valid ticket (`application/pdf`): the QR of its signed `code`, the event, the date (its inventory’s current one), ' +
          'the inventory, the variant, the holder and, once seating assigns one, the seat, in the seller’s `locale` (one language per page; ' +
          'a character its font cannot draw, such as an emoji, is left out). An order of this seller (under ' +
          '`X-Affiliate-Code`, of that affiliate), else 404; an order without a valid ticket: 404; one not paid (`pending`, `expired`): 409 `order_pending`.',
        security: [...sellerOnly, ...withOrderToken],
        params: ZOrderParams,
        response: { 200: z.string().describe('A PDF document').meta({ contentMediaType: 'application/pdf' }), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const pdf = await printOrderTickets(app.db, {
        codes: app.ticketCodes,
        sellerId: request.seller.id,
        affiliate: request.affiliate,
        customerId: null,
        orderTokenHash: request.orderToken,
        orderId: request.params.id,
        locale: request.seller.settings.locale,
      })
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="tickets-${request.params.id}.pdf"`)
        .header('cache-control', 'private, no-store')
        .send(Buffer.from(pdf) as unknown as string) // a Buffer goes out as it is, never through the serializer
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
