import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { getEventAvailability } from '../domain/catalog/get-event-availability.js'
import { getStorefrontEvent } from '../domain/catalog/get-storefront-event.js'
import { listStorefrontEvents } from '../domain/catalog/list-storefront-events.js'
import { AppError } from '../platform/errors.js'
import { errorResponses, pageMeta, ZUuid } from '../platform/http/schemas.js'
import {
  MAX_AVAILABILITY_DAYS,
  ZAvailabilityQuery,
  ZAvailabilityResponse,
  ZEventDetail,
  ZEventIdParams,
  ZEventListQuery,
  ZIdOrSlugParams,
  ZSellerEventList,
} from './catalog.schemas.js'

const DAY_MS = 86_400_000
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const dateMs = (date: string) => Date.parse(`${date}T00:00:00Z`)

const errors = errorResponses(400, 401, 404)
const security = [{ sellerBasic: [] }]

/** `/stf/v1/events`: the seller's catalogue, narrowed to the affiliate's events under `X-Affiliate-Code`. */
export const catalogRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/events',
    {
      config: { catalogueCache: true },
      schema: {
        tags: ['storefront'],
        operationId: 'listEvents',
        summary: 'List events',
        description: 'Published events unless `status` asks for cancelled or finished ones, soonest first.',
        security,
        querystring: ZEventListQuery,
        response: { 200: ZSellerEventList, ...errors },
      },
    },
    async (request) => {
      const query = request.query
      const { data, total } = await listStorefrontEvents(app.db, {
        sellerId: request.seller.id,
        scope: request.affiliate?.eventIds ?? null,
        status: query.status,
        q: query.q?.trim() || undefined,
        window: { from: query.date_from, to: query.date_to },
        page: query.page,
        limit: query.limit,
      })
      return { data, meta: pageMeta(query, data.length, total) }
    },
  )

  app.get(
    '/events/:id_or_slug',
    {
      config: { catalogueCache: true },
      schema: {
        tags: ['storefront'],
        operationId: 'getEvent',
        summary: 'Event detail, by id or slug',
        description: 'Published, cancelled and finished events; drafts are not found.',
        security,
        params: ZIdOrSlugParams,
        response: { 200: ZEventDetail, ...errors },
      },
    },
    async (request) =>
      getStorefrontEvent(app.db, {
        sellerId: request.seller.id,
        scope: request.affiliate?.eventIds ?? null,
        idOrSlug: ZUuid.safeParse(request.params.id_or_slug).success ? { id: request.params.id_or_slug.toLowerCase() } : { slug: request.params.id_or_slug },
      }),
  )

  app.get(
    '/events/:id/availability',
    {
      config: { catalogueCache: true },
      schema: {
        tags: ['storefront'],
        operationId: 'getEventAvailability',
        summary: 'Availability per date and inventory',
        description: `available = capacity − sold − held by unexpired baskets, never below 0. The range spans at most ${MAX_AVAILABILITY_DAYS} days.`,
        security,
        params: ZEventIdParams,
        querystring: ZAvailabilityQuery,
        response: { 200: ZAvailabilityResponse, ...errors },
      },
    },
    async (request) => {
      const from = request.query.from ?? isoDate(Date.now())
      const to = request.query.to ?? isoDate(dateMs(from) + 90 * DAY_MS)
      const span = (dateMs(to) - dateMs(from)) / DAY_MS
      if (span < 0) throw new AppError('validation_error', { details: [{ path: 'querystring.to', message: 'must not be before from' }] })
      if (span > MAX_AVAILABILITY_DAYS) {
        throw new AppError('validation_error', { details: [{ path: 'querystring.to', message: `must be at most ${MAX_AVAILABILITY_DAYS} days after from` }] })
      }
      return getEventAvailability(app.db, {
        sellerId: request.seller.id,
        scope: request.affiliate?.eventIds ?? null,
        eventId: request.params.id,
        from,
        to,
      })
    },
  )
}
