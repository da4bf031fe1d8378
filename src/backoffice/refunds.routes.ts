import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { confirmRefund } from '../domain/payments/confirm-refund.js'
import { listTransactions } from '../domain/payments/list-transactions.js'
import { refundOrder } from '../domain/payments/refund-order.js'
import { requirePermission } from '../iam/staff-auth.js'
import { errorResponses, ZIdParams } from '../platform/http/schemas.js'
import { ZRefund } from '../storefront/orders.schemas.js'
import { ZConfirmRefundRequest } from '../storefront/refunds.schemas.js'
import { STAFF_SECURITY as security, TAGS as tags } from './common.schemas.js'
import { ZRefundRequest, ZTransactionPage, ZTransactionQuery } from './refunds.schemas.js'
import { actorOf } from './staff-actor.js'

/** `/adm/v1` refunds and the ledger (docs/payments.md): refund and confirm with `adm.orders.write`, read the ledger with `adm.orders.read`. */
export const refundRoutes: FastifyPluginAsyncZod = async (app) => {
  const read = requirePermission('adm.orders.read')
  const write = requirePermission('adm.orders.write')

  app.post(
    '/orders/:id/refunds',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admRefundOrder',
        summary: 'Refund an order',
        description:
          'Needs `adm.orders.write`. Gives money back: at most what is left to refund (`paid_total − refunded_total −` pending refunds), ' +
          'however many refunds arrive at once; beyond it 409 `refund_exceeds_paid` with `details.refundable` (an order not paid has nothing). ' +
          'The `tickets` named are voided at once, as a void does (back on sale, the waiting list first; the door refuses them; the ledger ' +
          'voids them); an identifier the order does not have: 404 with `details`; a ticket voided already: 409 `ticket_voided` with ' +
          '`details.tickets`. Naming no tickets, a refund of everything left cancels the order (its tickets back on sale, webhook ' +
          '`order.cancelled`); of less, it moves money only. `pending` until confirmed (POST /refunds/{id}/confirm); with `reference`, ' +
          '`done` at once: the ledger writes its `refund` row and `refunded_total` grows. Webhooks `refund.created` (and `refund.done` when ' +
          'done at once, `ticket.voided` for the tickets named); the buyer is emailed.',
        security,
        params: ZIdParams,
        body: ZRefundRequest,
        response: { 201: ZRefund, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(
        await refundOrder(app.db, {
          codes: app.ticketCodes,
          orderId: request.params.id,
          amount: request.body.amount,
          tickets: request.body.tickets,
          reason: request.body.reason,
          reference: request.body.reference,
          actor: actorOf(request),
        }),
      ),
  )

  app.post(
    '/refunds/:id/confirm',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admConfirmRefund',
        summary: 'Confirm a refund executed at the provider',
        description:
          'Needs `adm.orders.write`. A pending refund becomes `done` under the provider’s `reference`: the ledger writes its `refund` row, ' +
          'the order’s `refunded_total` grows, webhook `refund.done`. Confirming a done refund changes nothing and answers it (200).',
        security,
        params: ZIdParams,
        body: ZConfirmRefundRequest,
        response: { 200: ZRefund, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => confirmRefund(app.db, { refundId: request.params.id, sellerId: null, reference: request.body.reference, actor: actorOf(request) }),
  )

  app.get(
    '/sellers/:id/transactions',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admListTransactions',
        summary: "A seller's ledger",
        description:
          'Needs `adm.orders.read`. The ledger (append-only: never updated, never deleted), oldest first, in the order it was written: ' +
          '`sale` (tickets became valid), `void` (tickets left a paid order), `payment`, `refund` (once done). For every order, its ' +
          'payment and refund rows add up to `paid_total − refunded_total`, its sale and void rows to the value of its valid tickets. ' +
          '`from` and `to` bound `created_at` as `[from, to)`; `limit` 1..1000 (default 100); `next_cursor` pages on, null at the end. ' +
          'A cursor this listing did not give: 400. An unknown seller: 404.',
        security,
        params: ZIdParams,
        querystring: ZTransactionQuery,
        response: { 200: ZTransactionPage, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      listTransactions(app.db, {
        sellerId: request.params.id,
        from: request.query.from === undefined ? undefined : new Date(request.query.from),
        to: request.query.to === undefined ? undefined : new Date(request.query.to),
        orderId: request.query.order_id,
        cursor: request.query.cursor,
        limit: request.query.limit,
      }),
  )
}
