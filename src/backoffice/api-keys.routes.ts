import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { createApiKey } from '../domain/sellers/create-api-key.js'
import { listApiKeys } from '../domain/sellers/list-api-keys.js'
import { revokeApiKey } from '../domain/sellers/revoke-api-key.js'
import { errorResponses, pageMeta, pageOf, ZIdParams, ZPageQuery } from '../platform/http/schemas.js'
import { requirePermission } from '../iam/staff-auth.js'
import { actorOf } from './staff-actor.js'
import { ZApiKey, ZApiKeyCreated, ZCreateApiKey, ZSellerKeyParams, toApiKey } from './api-keys.schemas.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'

/** A seller's API keys. Every key route needs `adm.sellers.write`, reading the list too. */
export const apiKeyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/sellers/:id/api-keys',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admIssueApiKey',
        summary: 'Issue an API key to a seller',
        description: 'The key is shown this once. A seller may hold several keys. Needs `adm.sellers.write`. The body is optional.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZCreateApiKey.nullish(),
        response: { 201: ZApiKeyCreated, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { key, apiKey } = await createApiKey(app.db, {
        sellerId: request.params.id,
        name: request.body?.name,
        tokenHmac: app.secrets.tokenHmac,
        actor: actorOf(request),
      })
      return reply.code(201).send({ ...toApiKey(key), api_key: apiKey })
    },
  )

  app.get(
    '/sellers/:id/api-keys',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admListApiKeys',
        summary: "List a seller's API keys",
        description: 'Newest first, revoked keys included. Never the keys themselves nor their hashes. Needs `adm.sellers.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        querystring: ZPageQuery,
        response: { 200: pageOf(ZApiKey), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { rows, total } = await listApiKeys(app.db, { sellerId: request.params.id, ...request.query })
      return { data: rows.map(toApiKey), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.delete(
    '/sellers/:id/api-keys/:key_id',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admRevokeApiKey',
        summary: 'Revoke an API key',
        description:
          'Every storefront process refuses the key from its next request on. Revoking a revoked key answers 204 again. ' + 'Needs `adm.sellers.write`.',
        security: STAFF_SECURITY,
        params: ZSellerKeyParams,
        response: { 204: z.undefined().describe('Revoked'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await revokeApiKey(app.db, { sellerId: request.params.id, keyId: request.params.key_id, actor: actorOf(request) })
      return reply.code(204).send()
    },
  )
}
