import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { drawEventSeatMap } from '../domain/seating/draw-event-seat-map.js'
import { getSeatMap } from '../domain/seating/get-seat-map.js'
import { createPlanPlacesMemo } from '../domain/seating/plan-places-memo.js'
import { errorResponses } from '../platform/http/schemas.js'
import { sendSvg, ZSvgDocument } from '../platform/http/svg-reply.js'
import { ZEventIdParams } from './catalog.schemas.js'
import { ZSeatMap, ZSeatMapQuery, ZSeatMapSvgQuery } from './seat-map.schemas.js'

/** A 50,000-seat map is megabytes of JSON, under a megabyte compressed: kept like the catalogue's answers, larger. */
const cached = { catalogueCache: { maxBodyBytes: 4 * 1024 * 1024 }, compress: true }
const security = [{ sellerBasic: [] }]
const DATE_RULE =
  'Without `date`: the event’s one date with seated inventories (several: 400). A draft, another seller’s event, one outside the ' +
  'affiliate’s scope, or no seated inventory on the date: 404. Answered from memory like the catalogue: holds and sales show within ' +
  '`CATALOGUE_CACHE_MS`, blocks at once; `ETag` and `If-None-Match` (304). Compressed (`br`, `gzip`) as `Accept-Encoding` allows.'

/** `/stf/v1/events/{id}/seats`: which seats of a date are free, for a seat picker (docs/seating.md). */
export const seatMapRoutes: FastifyPluginAsyncZod = async (app) => {
  // This app's plans, read once each (plans never change).
  const places = createPlanPlacesMemo()

  app.get(
    '/events/:id/seats',
    {
      config: cached,
      schema: {
        tags: ['storefront'],
        operationId: 'getEventSeats',
        summary: 'The seats of a date of an event, free, taken, blocked or reserved',
        description: `Every seat that one of the date’s seated inventories sells, in the plan’s order. ${DATE_RULE}`,
        security,
        params: ZEventIdParams,
        querystring: ZSeatMapQuery,
        response: { 200: ZSeatMap, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const map = await getSeatMap(app.db, places, {
        sellerId: request.seller.id,
        scope: request.affiliate?.eventIds ?? null,
        eventId: request.params.id,
        date: request.query.date,
      })
      // Tens of thousands of seats, each built field by field to the schema: checking them again would cost more than reading them.
      return reply.type('application/json; charset=utf-8').serializer(JSON.stringify).send(map)
    },
  )

  app.get(
    '/events/:id/seats.svg',
    {
      config: cached,
      schema: {
        tags: ['storefront'],
        operationId: 'getEventSeatsSvg',
        summary: 'The seat map of a date of an event, as SVG',
        description:
          'The plan drawn with each seat’s state (`data-status` on its circle: free, taken, blocked; a reserved seat is drawn taken) and its category’s colour; `highlight`’s ' +
          'seats ringed; its words in the seller’s `locale` (`xml:lang`). Well-formed XML whatever the plan’s texts hold (a character XML ' +
          `forbids, in a plan stored before such texts were refused, is replaced). ${DATE_RULE}`,
        security,
        params: ZEventIdParams,
        querystring: ZSeatMapSvgQuery,
        response: { 200: ZSvgDocument, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const svg = await drawEventSeatMap(app.db, places, {
        sellerId: request.seller.id,
        scope: request.affiliate?.eventIds ?? null,
        eventId: request.params.id,
        date: request.query.date,
        highlight: request.query.highlight,
        locale: request.seller.settings.locale,
      })
      return sendSvg(reply, svg, 'private, no-cache')
    },
  )
}
