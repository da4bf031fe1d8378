import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { createCoupon } from '../domain/coupons/create-coupon.js'
import { listCoupons } from '../domain/coupons/list-coupons.js'
import { updateCoupon } from '../domain/coupons/update-coupon.js'
import { errorResponses, pageMeta, pageOf, ZIdParams } from '../platform/http/schemas.js'
import { requirePermission } from '../iam/staff-auth.js'
import { actorOf } from './staff-actor.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'
import { fromCouponBody, toCoupon, ZCoupon, ZCouponListQuery, ZCreateCoupon, ZUpdateCoupon } from './coupons.schemas.js'

/** A seller's discount coupons. */
export const couponRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/sellers/:id/coupons',
    {
      onRequest: requirePermission('adm.catalog.write'),
      schema: {
        tags: TAGS,
        operationId: 'admCreateCoupon',
        summary: 'Create a coupon of a seller',
        description: 'Needs `adm.catalog.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZCreateCoupon,
        response: { 201: ZCoupon, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const coupon = await createCoupon(app.db, { sellerId: request.params.id, ...fromCouponBody(request.body), actor: actorOf(request) })
      return reply.code(201).send(toCoupon(coupon))
    },
  )

  app.get(
    '/sellers/:id/coupons',
    {
      onRequest: requirePermission('adm.catalog.read'),
      schema: {
        tags: TAGS,
        operationId: 'admListCoupons',
        summary: "List a seller's coupons",
        description: 'By code. Needs `adm.catalog.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        querystring: ZCouponListQuery,
        response: { 200: pageOf(ZCoupon), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { page, limit, active } = request.query
      const { rows, total } = await listCoupons(app.db, {
        sellerId: request.params.id,
        active: active === undefined ? undefined : active === 'true',
        page,
        limit,
      })
      return { data: rows.map(toCoupon), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.put(
    '/coupons/:id',
    {
      onRequest: requirePermission('adm.catalog.write'),
      schema: {
        tags: TAGS,
        operationId: 'admUpdateCoupon',
        summary: 'Update a coupon',
        description:
          'Changes only the fields given; the terms must hold together after the change (type and value, the validity window, ' +
          'a usage limit not below the uses so far). `null` clears a bound or a limit. Needs `adm.catalog.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZUpdateCoupon,
        response: { 200: ZCoupon, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => toCoupon(await updateCoupon(app.db, { couponId: request.params.id, ...fromCouponBody(request.body), actor: actorOf(request) })),
  )
}
