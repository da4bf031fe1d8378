import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { acceptOffer, declineOffer } from '../domain/waiting-list/answer-offer.js'
import { joinWaitingList } from '../domain/waiting-list/join-waiting-list.js'
import { getWaitingEntry, leaveWaitingList } from '../domain/waiting-list/leave-waiting-list.js'
import { toWaitingEntryView } from '../domain/waiting-list/waiting-entry-view.js'
import { errorResponses, ZIdParams } from '../platform/http/schemas.js'
import { storefrontActor } from './actor.js'
import { ZBasket } from './baskets.schemas.js'
import { optionalCustomer } from './customer-auth.js'
import { customerRateLimits } from './customer-rate-limits.js'
import { ZJoinWaitingList, ZOfferTokenBody, ZWaitingEntry } from './waiting-list.schemas.js'

const tags = ['storefront']
const security = [{ sellerBasic: [] }]

/** `/stf/v1/waiting-list` (docs/waiting-list.md): returned tickets go to the people waiting, in order, before the public. */
export const waitingListRoutes: FastifyPluginAsyncZod = async (app) => {
  const limits = customerRateLimits(app)

  app.post(
    '/waiting-list',
    {
      onRequest: limits.joinPerIp,
      preHandler: optionalCustomer,
      schema: {
        tags,
        operationId: 'joinWaitingList',
        summary: 'Join an inventory’s waiting list',
        description:
          'Only when its list is on and no ticket of it is on sale to the public (its `available` is 0), whatever the quantity: while anyone ' +
          'waits, nothing is sold to the public. Tickets that come back go to the queue in order (priority, then ' +
          'who joined first), and the entry is emailed an offer holding them. An inventory the caller could not buy (another seller’s, a ' +
          'draft event’s, outside the affiliate’s events): 404. 409 `waiting_list_closed` (list off, date passed, event not on sale), ' +
          '`tickets_available` (buy them instead), `already_waiting` (this email waits for it already). 400 `validation_error` on ' +
          '`quantity` above the seller’s `waiting_list_max_quantity` (default 4) or the inventory’s capacity. With `X-Customer-Token` the offer’s ' +
          'basket is that customer’s; under `X-Affiliate-Code` the entry answers only to that code and its offer is the affiliate’s sale ' +
          '(the token alone accepts it: the basket answered names its `affiliate_code`). ' +
          'Limited per `X-End-User-IP` like registration.',
        security: [{ sellerBasic: [] }, { sellerBasic: [], customerToken: [] }],
        body: ZJoinWaitingList,
        response: { 201: ZWaitingEntry, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const { body } = request
      const entry = await joinWaitingList(app.db, {
        sellerId: request.seller.id,
        affiliate: request.affiliate,
        inventoryId: body.inventory_id.toLowerCase(),
        variant: body.variant ?? null,
        quantity: body.quantity,
        email: body.email,
        name: body.name ?? null,
        customerId: request.customer?.id ?? null,
        actor: storefrontActor(request),
      })
      return reply.code(201).send(entry)
    },
  )

  app.get(
    '/waiting-list/:id',
    {
      schema: {
        tags,
        operationId: 'getWaitingEntry',
        summary: 'Read a waiting list entry',
        description: 'With its current `position` while it waits.',
        security,
        params: ZIdParams,
        response: { 200: ZWaitingEntry, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      toWaitingEntryView(await getWaitingEntry(app.db, { sellerId: request.seller.id, affiliate: request.affiliate, entryId: request.params.id })),
  )

  app.delete(
    '/waiting-list/:id',
    {
      schema: {
        tags,
        operationId: 'leaveWaitingList',
        summary: 'Leave a waiting list',
        description: 'The entry is `cancelled`; an offered one’s tickets pass on at once. An entry that already ended stays as it is.',
        security,
        params: ZIdParams,
        response: { 204: z.undefined().describe('Left'), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await leaveWaitingList(app.db, { sellerId: request.seller.id, affiliate: request.affiliate, entryId: request.params.id, actor: storefrontActor(request) })
      return reply.code(204).send()
    },
  )

  app.post(
    '/waiting-list/accept',
    {
      preHandler: optionalCustomer,
      schema: {
        tags,
        operationId: 'acceptWaitingListOffer',
        summary: 'Accept an offer',
        description:
          'Answers the basket holding the offered tickets, a normal basket from here on (held for the seller’s `basket_ttl_seconds`; ' +
          'check it out as usual). The token works once: 401 `invalid_token` when used, unknown or another seller’s; 410 `offer_expired` after `offer_expires_at`.',
        security: [{ sellerBasic: [] }, { sellerBasic: [], customerToken: [] }],
        body: ZOfferTokenBody,
        response: { 201: ZBasket, ...errorResponses(400, 401, 410) },
      },
    },
    async (request, reply) => {
      const basket = await acceptOffer(app.db, {
        sellerId: request.seller.id,
        token: request.body.token,
        tokenHmac: app.secrets.tokenHmac,
        ttlSeconds: request.seller.settings.basket_ttl_seconds,
        customerId: request.customer?.id ?? null,
        actor: storefrontActor(request),
      })
      return reply.code(201).send(basket)
    },
  )

  app.post(
    '/waiting-list/decline',
    {
      schema: {
        tags,
        operationId: 'declineWaitingListOffer',
        summary: 'Decline an offer',
        description: 'The entry is `declined` and its tickets pass on at once. 401 `invalid_token`, 410 `offer_expired` as for accept.',
        security,
        body: ZOfferTokenBody,
        response: { 200: ZWaitingEntry, ...errorResponses(400, 401, 410) },
      },
    },
    async (request) =>
      declineOffer(app.db, {
        sellerId: request.seller.id,
        token: request.body.token,
        tokenHmac: app.secrets.tokenHmac,
        actor: storefrontActor(request),
      }),
  )
}
