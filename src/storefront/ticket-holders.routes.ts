import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { changeHolder } from '../domain/tickets/change-holder.js'
import { errorResponses } from '../platform/http/schemas.js'
import { storefrontActor } from './actor.js'
import { optionalCustomer } from './customer-auth.js'
import { orderTokenCheck, requireCustomerOrOrderToken } from './order-token-auth.js'
import { ZTicketQrParams } from './orders.schemas.js'
import { ZHolderRequest, ZTicket } from './ticket-holders.schemas.js'

const tags = ['storefront']
const withCustomer = [{ sellerBasic: [], customerToken: [] }]
const withOrderToken = [{ sellerBasic: [], orderToken: [] }]

/** The buyer names whose each ticket is (docs/transfers.md). */
export const ticketHolderRoutes: FastifyPluginAsyncZod = async (app) => {
  const checkOrderToken = orderTokenCheck(app)

  app.put(
    '/orders/:id/tickets/:identifier/holder',
    {
      preHandler: [optionalCustomer, checkOrderToken, requireCustomerOrOrderToken],
      schema: {
        tags,
        operationId: 'changeTicketHolder',
        summary: 'Name a ticket’s holder',
        description:
          'Needs `X-Customer-Token` of the order’s customer or the order’s `X-Order-Token` (another’s order, or an identifier it does ' +
          'not have: 404; neither header: 401). The holder’s name is printed on the ticket and shown at the gate. The ticket gets a ' +
          'new `code` (`code_version` + 1): the code shown before is refused at the gates from now on, so send the holder the ticket ' +
          'again. Allowed for a `valid` ticket until its first check-in, and at most the seller’s `holder_changes_max` times per ticket; ' +
          'then 409 `holder_locked`. A ticket of an order awaiting payment: 409 `order_pending`; a voided, expired or transferred one: ' +
          '409 `ticket_voided` (`details.status`). Naming the holder it has already changes nothing (no new code, not counted). ' +
          'Answers the Ticket, its document masked. Webhook `ticket.holder_changed`.',
        security: [...withCustomer, ...withOrderToken],
        params: ZTicketQrParams,
        body: ZHolderRequest,
        response: { 200: ZTicket, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) =>
      changeHolder(app.db, {
        codes: app.ticketCodes,
        owner: {
          sellerId: request.seller.id,
          affiliateId: request.affiliate?.id ?? null,
          customerId: request.customer?.id ?? null,
          orderTokenHash: request.orderToken,
          orderId: request.params.id,
        },
        identifier: request.params.identifier,
        holder: { name: request.body.name, document: request.body.document ?? null },
        holderChangesMax: request.seller.settings.holder_changes_max,
        actor: storefrontActor(request),
      }),
  )
}
