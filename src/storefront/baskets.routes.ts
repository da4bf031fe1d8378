import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { applyCoupon } from '../domain/baskets/apply-coupon.js'
import { changeBasketItems } from '../domain/baskets/change-basket-items.js'
import { createBasket } from '../domain/baskets/create-basket.js'
import { getBasket } from '../domain/baskets/get-basket.js'
import { quoteInstallments } from '../domain/baskets/quote-installments.js'
import { removeCoupon } from '../domain/baskets/remove-coupon.js'
import { errorResponses } from '../platform/http/schemas.js'
import { storefrontActor } from './actor.js'
import { optionalCustomer } from './customer-auth.js'
import {
  ZBasket,
  ZBasketItemParams,
  ZBasketParams,
  ZChangeBasketItemsBody,
  ZCouponBody,
  ZCreateBasketBody,
  ZIdempotencyHeaders,
  ZInstallments,
  ZInstallmentsBody,
} from './baskets.schemas.js'

const tags = ['storefront']
const security = [{ sellerBasic: [] }]
const couponErrors = errorResponses(400, 401, 404, 409, 410, 422)

type BasketRequest = Pick<FastifyRequest, 'seller' | 'affiliate' | 'customer' | 'id'> & { params: { id: string } }

/** What every call on one basket passes: tenant, affiliate scope, basket and actor. */
const onBasket = (request: BasketRequest) => ({
  sellerId: request.seller.id,
  affiliate: request.affiliate,
  basketId: request.params.id,
  actor: storefrontActor(request),
})

/** What a call that renews the basket's hold passes: `onBasket`'s, and how long the seller holds. */
const renewingHold = (request: BasketRequest) => ({ ...onBasket(request), ttlSeconds: request.seller.settings.basket_ttl_seconds })

const toItems = (
  items: {
    inventory_id: string
    variant?: string | null | undefined
    quantity?: number | undefined
    seats?: string[] | undefined
    together?: boolean | undefined
  }[],
) =>
  items.map((i) => ({
    inventoryId: i.inventory_id.toLowerCase(),
    variant: i.variant ?? null,
    quantity: i.quantity ?? i.seats?.length ?? 0,
    ...(i.seats === undefined ? {} : { seats: i.seats }),
    ...(i.together === undefined ? {} : { together: i.together }),
  }))

/** `/stf/v1/baskets`: holds, coupons and installment plans. */
export const basketRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/baskets',
    {
      // A new arrival: while the process is saturated, the checkouts in progress go first.
      config: { admission: 'later' },
      preHandler: optionalCustomer,
      schema: {
        tags,
        operationId: 'createBasket',
        summary: 'Open a basket',
        description:
          'Holds every requested quantity until `expires_at` (the seller’s `basket_ttl_seconds`), or nothing: 409 `insufficient_inventory`. ' +
          'An inventory that is not on sale for this caller (another seller’s, of an unpublished event, outside the affiliate’s events): 404 `not_found`. ' +
          'Under `X-Affiliate-Code` the basket belongs to that affiliate; with `X-Customer-Token` it is linked to that customer. Honours `Idempotency-Key`. ' +
          'Reserved seating (a seated inventory): name `seats`, or send `quantity` for the best available (adjacent in one row, stranding no single seat ' +
          'where that can be helped, nearest the front and the middle); the best-available items of one inventory are one party, seated as one block ' +
          'dealt to them in order; a named seat held, sold, blocked or held back for the waiting list: 409 `seat_unavailable`; no block left with ' +
          '`together`: 409 `seats_not_together` (`details.max_together`); named seats stranding one (the seats the request names and keeps judged ' +
          'together) while the seller sets `seating_no_orphans`: 409 `seat_orphan`.',
        security: [{ sellerBasic: [] }, { sellerBasic: [], customerToken: [] }],
        headers: ZIdempotencyHeaders,
        body: ZCreateBasketBody,
        response: { 201: ZBasket, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const { body, replayed } = await createBasket(app.db, {
        sellerId: request.seller.id,
        ttlSeconds: request.seller.settings.basket_ttl_seconds,
        affiliate: request.affiliate,
        customerId: request.customer?.id ?? null,
        items: toItems(request.body.items),
        idempotencyKey: request.headers['idempotency-key'],
        actor: storefrontActor(request),
        availability: app.availability,
        holds: app.holds,
      })
      if (replayed) reply.header('idempotent-replayed', 'true')
      return reply.code(201).send(body)
    },
  )

  app.get(
    '/baskets/:id',
    {
      schema: {
        tags,
        operationId: 'getBasket',
        summary: 'Read a basket',
        description:
          'Priced now. A coupon that gives nothing now reads `applicable: false` with the `reason` a checkout would refuse with, and counts 0; ' +
          'an item the basket could not buy now reads `available: false`. A checked-out basket reads as it was sold, with its `order_id`.',
        security,
        params: ZBasketParams,
        response: { 200: ZBasket, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => getBasket(app.db, onBasket(request)),
  )

  app.patch(
    '/baskets/:id/items',
    {
      schema: {
        tags,
        operationId: 'changeBasketItems',
        summary: 'Set item quantities',
        description:
          'Sets the quantity of each listed inventory (0 removes it); unlisted items stay. All or nothing: 409 `insufficient_inventory` leaves the basket unchanged. Renews the hold. ' +
          'A basket already checked out: 409 `basket_checked_out` with `details.order_id`; one whose hold lapsed: 410 `basket_expired`. ' +
          'A seated item with `seats` holds exactly those (seats in both lists stay held throughout); with `quantity` alone it picks the best available again, ' +
          'its own seats counting as free. Seat refusals as for opening a basket; the basket is unchanged.',
        security,
        params: ZBasketParams,
        body: ZChangeBasketItemsBody,
        response: { 200: ZBasket, ...errorResponses(400, 401, 404, 409, 410) },
      },
    },
    async (request) => {
      const basket = await changeBasketItems(app.db, { ...renewingHold(request), items: toItems(request.body.items) })
      // Its checkout joins the group of the inventories it holds now.
      app.holds.held(
        basket.id,
        basket.items.map((item) => item.inventory_id),
      )
      return basket
    },
  )

  app.post(
    '/baskets/:id/coupon',
    {
      schema: {
        tags,
        operationId: 'applyBasketCoupon',
        summary: 'Apply a coupon to the basket',
        description:
          'Replaces the basket coupon. Percent discounts round down to the centavo; a discount never exceeds what it applies to. ' +
          'The discount is spread over the items it covers (largest remainder, by item total), so that the items’ totals add up to the total. ' +
          'A basket already checked out: 409 `basket_checked_out`.',
        security,
        params: ZBasketParams,
        body: ZCouponBody,
        response: { 200: ZBasket, ...couponErrors },
      },
    },
    async (request) => applyCoupon(app.db, { ...renewingHold(request), code: request.body.code }),
  )

  app.delete(
    '/baskets/:id/coupon',
    {
      schema: {
        tags,
        operationId: 'removeBasketCoupon',
        summary: 'Remove the basket coupon',
        security,
        params: ZBasketParams,
        response: { 200: ZBasket, ...errorResponses(400, 401, 404, 409, 410) },
      },
    },
    async (request) => removeCoupon(app.db, onBasket(request)),
  )

  app.post(
    '/baskets/:id/coupon/:item_id',
    {
      schema: {
        tags,
        operationId: 'applyItemCoupon',
        summary: 'Apply a coupon to one item',
        description: 'Discounts that item only, replacing its coupon. A coupon discounts one place in a basket.',
        security,
        params: ZBasketItemParams,
        body: ZCouponBody,
        response: { 200: ZBasket, ...couponErrors },
      },
    },
    async (request) => applyCoupon(app.db, { ...renewingHold(request), itemId: request.params.item_id, code: request.body.code }),
  )

  app.delete(
    '/baskets/:id/coupon/:item_id',
    {
      schema: {
        tags,
        operationId: 'removeItemCoupon',
        summary: 'Remove an item coupon',
        security,
        params: ZBasketItemParams,
        response: { 200: ZBasket, ...errorResponses(400, 401, 404, 409, 410) },
      },
    },
    async (request) => removeCoupon(app.db, { ...onBasket(request), itemId: request.params.item_id }),
  )

  app.post(
    '/baskets/:id/installments',
    {
      schema: {
        tags,
        operationId: 'quoteInstallments',
        summary: 'Installment plans for the basket total',
        description:
          '`pix` and `boleto`: one plan of 1. `credit_card`: 1 to `max_installments`, dropping plans under `min_installment_amount`; ' +
          'interest-free up to `interest_free_installments` (`ceil(total / n)`, the rest in `last_amount`), then the Price formula at `monthly_rate`. ' +
          'Each plan charges exactly its `total`: `amount × (installments − 1) + last_amount`.',
        security,
        params: ZBasketParams,
        body: ZInstallmentsBody,
        response: { 200: ZInstallments, ...errorResponses(400, 401, 404, 409, 410, 422) },
      },
    },
    async (request) =>
      quoteInstallments(app.db, {
        ...onBasket(request),
        paymentMethod: request.body.payment_method,
        settings: request.seller.settings,
      }),
  )
}
