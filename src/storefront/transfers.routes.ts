import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { acceptTransfer } from '../domain/transfers/accept-transfer.js'
import { cancelTransfer, declineTransfer } from '../domain/transfers/end-transfer.js'
import { listOrderTransfers } from '../domain/transfers/list-transfers.js'
import { offerTransfer } from '../domain/transfers/offer-transfer.js'
import { hashTransferToken } from '../domain/transfers/transfer-tokens.js'
import { hashOrderToken, MAX_ORDER_TOKEN_LENGTH } from '../domain/orders/order-tokens.js'
import { AppError } from '../platform/errors.js'
import { errorResponses, ZIdParams } from '../platform/http/schemas.js'
import { storefrontActor } from './actor.js'
import { optionalCustomer } from './customer-auth.js'
import { customerRateLimits } from './customer-rate-limits.js'
import { ORDER_TOKEN_HEADER, orderTokenCheck, requireCustomerOrOrderToken } from './order-token-auth.js'
import { ZOrderParams } from './orders.schemas.js'
import { ZAcceptedTransfer, ZTicketParams, ZTransfer, ZTransferList, ZTransferRequest, ZTransferTokenRequest } from './transfers.schemas.js'

const tags = ['storefront']
const sellerOnly = [{ sellerBasic: [] }]
const withCustomer = [{ sellerBasic: [], customerToken: [] }]
const withOrderToken = [{ sellerBasic: [], orderToken: [] }]

/** Tickets given to someone else (docs/transfers.md): the sender offers, the recipient accepts or declines by the emailed token. */
export const transferRoutes: FastifyPluginAsyncZod = async (app) => {
  const checkOrderToken = orderTokenCheck(app)
  // Made at the first call, not when the routes are registered (a route table may be read without a configured app).
  let limits: ReturnType<typeof customerRateLimits> | undefined
  const rateLimits = () => (limits ??= customerRateLimits(app))

  app.post(
    '/orders/:id/tickets/:identifier/transfers',
    {
      preHandler: [optionalCustomer, checkOrderToken, requireCustomerOrOrderToken],
      schema: {
        tags,
        operationId: 'offerTicketTransfer',
        summary: 'Offer a ticket to someone else',
        description:
          'Needs `X-Customer-Token` of the order’s customer or the order’s `X-Order-Token` (another’s order or an identifier it does not have: ' +
          '404; neither: 401). The recipient is emailed, in the seller’s `locale`, a link `{storefront_url}/transfer?token=` to accept or decline ' +
          'it, valid 72 hours or until the ticket’s date (its `time` when said), whichever is first. One pending transfer per ticket (409 ' +
          '`transfer_pending`). A valid ticket of a paid order, not checked in, of an inventory `transferable` up to its `transfer_closes_hours` ' +
          'before its date: else 409 `ticket_not_transferable` (a ticket of an order awaiting payment: 409 `order_pending`). To the order’s own ' +
          'buyer’s email: 400 at `email`.',
        security: [...withCustomer, ...withOrderToken],
        params: ZTicketParams,
        body: ZTransferRequest,
        response: { 201: ZTransfer, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const transfer = await offerTransfer(app.db, {
        tokenHmac: app.secrets.tokenHmac,
        sellerId: request.seller.id,
        orderId: request.params.id,
        identifier: request.params.identifier,
        customerId: request.customer?.id ?? null,
        orderTokenHash: request.orderToken,
        recipient: request.body,
        actor: storefrontActor(request),
      })
      return reply.code(201).send(transfer)
    },
  )

  app.get(
    '/orders/:id/transfers',
    {
      preHandler: [optionalCustomer, checkOrderToken],
      schema: {
        tags,
        operationId: 'listOrderTransfers',
        summary: 'An order’s transfers',
        description: 'Every transfer of the order’s tickets, oldest first, for whoever may read the order (GET /orders/{id}); another: 404.',
        security: [...sellerOnly, ...withCustomer, ...withOrderToken],
        params: ZOrderParams,
        response: { 200: ZTransferList, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => ({
      data: await listOrderTransfers(app.db, {
        sellerId: request.seller.id,
        orderId: request.params.id,
        customerId: request.customer?.id ?? null,
        orderTokenHash: request.orderToken,
        affiliate: request.affiliate,
      }),
    }),
  )

  app.delete(
    '/transfers/:id',
    {
      preHandler: optionalCustomer,
      schema: {
        tags,
        operationId: 'cancelTicketTransfer',
        summary: 'Take back a pending transfer',
        description:
          'Needs `X-Customer-Token` of the sender’s order’s customer or that order’s `X-Order-Token` (anyone else: 404; neither: 401; a wrong ' +
          'order token counts per `X-End-User-IP` as a failed login, 429 past the limit). Answers it `cancelled`; cancelled already: as it is; ' +
          'accepted, declined or expired: 409 `transfer_ended`.',
        security: [...withCustomer, ...withOrderToken],
        params: ZIdParams,
        response: { 200: ZTransfer, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request) => {
      const header = request.headers[ORDER_TOKEN_HEADER]
      const orderToken = typeof header === 'string' && header !== '' ? header : null
      if (request.customer === null && orderToken === null) {
        throw new AppError('unauthorized', { message: 'This call needs the sender’s customer token (X-Customer-Token) or its order’s token (X-Order-Token)' })
      }
      const cancel = (orderTokenHash: string | null) =>
        cancelTransfer(app.db, {
          sellerId: request.seller.id,
          transferId: request.params.id,
          customerId: request.customer?.id ?? null,
          orderTokenHash,
          actor: storefrontActor(request),
        })
      if (request.customer !== null || orderToken === null) return cancel(null)
      return rateLimits().guardOrderToken(request, () => {
        if (orderToken.length > MAX_ORDER_TOKEN_LENGTH) throw new AppError('not_found')
        return cancel(hashOrderToken(app.secrets.tokenHmac, orderToken))
      })
    },
  )

  app.post(
    '/transfers/accept',
    {
      preHandler: optionalCustomer,
      schema: {
        tags,
        operationId: 'acceptTicketTransfer',
        summary: 'The recipient accepts a transfer',
        description:
          'By the emailed `token`. The ticket moves to a new order of the recipient (`source: "transfer"`, `total: 0`, `transferred_from`): the ' +
          'customer’s of `X-Customer-Token` when sent, else the seller’s account that verified the recipient’s email, else a guest order whose ' +
          'link (with its order token) is emailed. The ticket gets a new identifier and code and keeps its seat; the old identifier and every ' +
          'code of it are refused at the gates (`invalid`) and the door feed carries it as `revoked`. An unknown, used, cancelled, declined or ' +
          'expired token: 404, all alike, counted per `X-End-User-IP` as a failed login (429 past the limit). A ticket that can no longer be ' +
          'given (voided, checked in, too near its date): 409 `ticket_not_transferable`, and the transfer ends `cancelled`. Webhook ' +
          '`ticket.transferred`; the sender is emailed.',
        security: [...sellerOnly, ...withCustomer],
        body: ZTransferTokenRequest,
        response: { 200: ZAcceptedTransfer, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request) =>
      rateLimits().guardTransferToken(request, () =>
        acceptTransfer(app.db, {
          codes: app.ticketCodes,
          tokenHmac: app.secrets.tokenHmac,
          sellerId: request.seller.id,
          tokenHash: hashTransferToken(app.secrets.tokenHmac, request.body.token),
          customer: request.customer,
          actor: storefrontActor(request),
        }),
      ),
  )

  app.post(
    '/transfers/decline',
    {
      schema: {
        tags,
        operationId: 'declineTicketTransfer',
        summary: 'The recipient declines a transfer',
        description:
          'By the emailed `token`: the ticket stays the sender’s, who is emailed. An unknown, used, cancelled, declined or expired token: 404, ' +
          'counted as accept counts it.',
        security: sellerOnly,
        body: ZTransferTokenRequest,
        response: { 200: ZTransfer, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) =>
      rateLimits().guardTransferToken(request, () =>
        declineTransfer(app.db, {
          sellerId: request.seller.id,
          tokenHash: hashTransferToken(app.secrets.tokenHmac, request.body.token),
          actor: storefrontActor(request),
        }),
      ),
  )
}
