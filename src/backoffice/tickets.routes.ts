import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { changeHolder } from '../domain/tickets/change-holder.js'
import { reissueTicket } from '../domain/tickets/reissue-ticket.js'
import { requirePermission } from '../iam/staff-auth.js'
import { errorResponses } from '../platform/http/schemas.js'
import { ZHolderRequest, ZTicket } from '../storefront/ticket-holders.schemas.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'
import { actorOf } from './staff-actor.js'

const ZTicketParams = z.object({ identifier: z.string().min(1).max(64).describe('The ticket identifier, as its order lists it') })

/** `/adm/v1` tickets by identifier: name a ticket's holder, or give it a new code (docs/transfers.md); `adm.orders.write`. */
export const ticketRoutes: FastifyPluginAsyncZod = async (app) => {
  const write = requirePermission('adm.orders.write')

  app.put(
    '/tickets/:identifier/holder',
    {
      onRequest: write,
      schema: {
        tags: TAGS,
        operationId: 'admChangeTicketHolder',
        summary: 'Name a ticket’s holder',
        description:
          'Needs `adm.orders.write`. As the buyer’s change on the storefront: a new `code` (`code_version` + 1; the code shown before is ' +
          'refused at the gates), webhook `ticket.holder_changed`; not counted against the seller’s `holder_changes_max` nor limited by ' +
          'it, but refused after the ticket’s first check-in (409 `holder_locked`). A ticket of an order awaiting payment: 409 ' +
          '`order_pending`; a voided, expired or transferred one: 409 `ticket_voided`. Unknown identifier: 404. Answers the Ticket, its ' +
          'document whole.',
        security: STAFF_SECURITY,
        params: ZTicketParams,
        body: ZHolderRequest,
        response: { 200: ZTicket, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      changeHolder(app.db, {
        codes: app.ticketCodes,
        owner: 'staff',
        identifier: request.params.identifier,
        holder: { name: request.body.name, document: request.body.document ?? null },
        // Staff changes are neither counted nor limited.
        holderChangesMax: Number.POSITIVE_INFINITY,
        actor: actorOf(request),
      }),
  )

  app.post(
    '/tickets/:identifier/reissue',
    {
      onRequest: write,
      schema: {
        tags: TAGS,
        operationId: 'admReissueTicket',
        summary: 'Give a ticket a new code',
        description:
          'Needs `adm.orders.write`. The same identifier with a new `code` (`code_version` + 1), e.g. after a photo of the QR leaked: the ' +
          'code shown before is refused `invalid` at the gates from now on, and the door’s feed returns the ticket with its new ' +
          '`code_version`. Holder and check-ins stay; a ticket already checked in may be re-issued too. A ticket of an order awaiting ' +
          'payment: 409 `order_pending`; a voided, expired or transferred one: 409 `ticket_voided`. Unknown identifier: 404. Answers the ' +
          'Ticket, its document whole.',
        security: STAFF_SECURITY,
        params: ZTicketParams,
        response: { 200: ZTicket, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => reissueTicket(app.db, { codes: app.ticketCodes, identifier: request.params.identifier, actor: actorOf(request) }),
  )
}
