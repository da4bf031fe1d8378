import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { createSeller } from '../domain/sellers/create-seller.js'
import { getSeller } from '../domain/sellers/get-seller.js'
import { listSellers } from '../domain/sellers/list-sellers.js'
import { updateSeller } from '../domain/sellers/update-seller.js'
import { errorResponses, pageMeta, pageOf, ZIdParams } from '../platform/http/schemas.js'
import { requirePermission } from '../iam/staff-auth.js'
import { actorOf } from './staff-actor.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'
import { toSeller, ZCreateSeller, ZSeller, ZSellerCreated, ZSellerListQuery, ZUpdateSeller } from './sellers.schemas.js'

/** Sellers: the partners whose storefronts call `/stf/v1`. */
export const sellerRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/sellers',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admCreateSeller',
        summary: 'Create a seller with its first API key',
        description: 'Answers the seller and its first API key, which is shown this once. Needs `adm.sellers.write`.',
        security: STAFF_SECURITY,
        body: ZCreateSeller,
        response: { 201: ZSellerCreated, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { name, storefront_url, contact_email, settings } = request.body
      const { seller, apiKey } = await createSeller(app.db, {
        name,
        storefrontUrl: storefront_url,
        contactEmail: contact_email,
        settings,
        tokenHmac: app.secrets.tokenHmac,
        actor: actorOf(request),
      })
      return reply.code(201).send({ ...toSeller(seller), api_key: apiKey })
    },
  )

  app.get(
    '/sellers',
    {
      onRequest: requirePermission('adm.sellers.read'),
      schema: {
        tags: TAGS,
        operationId: 'admListSellers',
        summary: 'List sellers',
        description: 'Newest first. Needs `adm.sellers.read`.',
        security: STAFF_SECURITY,
        querystring: ZSellerListQuery,
        response: { 200: pageOf(ZSeller), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { rows, total } = await listSellers(app.db, request.query)
      return { data: rows.map(toSeller), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.get(
    '/sellers/:id',
    {
      onRequest: requirePermission('adm.sellers.read'),
      schema: {
        tags: TAGS,
        operationId: 'admGetSeller',
        summary: 'Get a seller',
        description: 'Needs `adm.sellers.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        response: { 200: ZSeller, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => toSeller(await getSeller(app.db, request.params.id)),
  )

  app.put(
    '/sellers/:id',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admUpdateSeller',
        summary: 'Update, disable or enable a seller',
        description:
          'Changes only the fields given (and, within `settings`, only the settings given). ' +
          'Every storefront process sees the change from the next request on. Needs `adm.sellers.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZUpdateSeller,
        response: { 200: ZSeller, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { name, storefront_url, contact_email, status, settings } = request.body
      return toSeller(
        await updateSeller(app.db, {
          sellerId: request.params.id,
          name,
          storefrontUrl: storefront_url,
          contactEmail: contact_email,
          status,
          settings,
          actor: actorOf(request),
        }),
      )
    },
  )
}
