import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { createWebhook } from '../domain/webhooks/create-webhook.js'
import { deleteWebhook } from '../domain/webhooks/delete-webhook.js'
import { getWebhook } from '../domain/webhooks/get-webhook.js'
import { listWebhookDeliveries } from '../domain/webhooks/list-webhook-deliveries.js'
import { listWebhooks } from '../domain/webhooks/list-webhooks.js'
import { pingWebhook } from '../domain/webhooks/ping-webhook.js'
import { redeliverWebhook } from '../domain/webhooks/redeliver-webhook.js'
import { rotateWebhookSecret } from '../domain/webhooks/rotate-webhook-secret.js'
import { updateWebhook } from '../domain/webhooks/update-webhook.js'
import { requirePermission } from '../iam/staff-auth.js'
import { errorResponses, pageMeta, pageOf, ZIdParams, ZPageQuery } from '../platform/http/schemas.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'
import { actorOf } from './staff-actor.js'
import {
  toWebhook,
  toWebhookDelivery,
  ZCreateWebhook,
  ZPingAccepted,
  ZUpdateWebhook,
  ZWebhook,
  ZWebhookDelivery,
  ZWebhookDeliveryParams,
  ZWebhookWithSecret,
} from './webhooks.schemas.js'

const SIGNING =
  'Each event is POSTed as `{id, type, created_at, seller_id, affiliate_code, data}` with `Boxoffice-Event-Id` and ' +
  '`Boxoffice-Signature: t=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<raw body>" keyed with the secret>`.'

/** Webhook endpoints of sellers, their deliveries, and the tools to test and replay them (docs/webhooks.md). */
export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const policy = app.config.webhooks
  const secretKey = app.secrets.webhookSecrets

  app.post(
    '/sellers/:id/webhooks',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admCreateWebhook',
        summary: 'Add a webhook endpoint to a seller',
        description: `The answer carries the signing secret, shown this once. ${SIGNING} Needs \`adm.sellers.write\`.`,
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZCreateWebhook,
        response: { 201: ZWebhookWithSecret, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { url, events, description, active } = request.body
      const { endpoint, secret } = await createWebhook(app.db, {
        sellerId: request.params.id,
        url,
        events,
        description,
        active,
        policy,
        secretKey,
        actor: actorOf(request),
      })
      return reply.code(201).send({ ...toWebhook(endpoint), secret })
    },
  )

  app.get(
    '/sellers/:id/webhooks',
    {
      onRequest: requirePermission('adm.sellers.read'),
      schema: {
        tags: TAGS,
        operationId: 'admListWebhooks',
        summary: "List a seller's webhook endpoints",
        description: 'In the order they were added, inactive ones included; never their secrets. Needs `adm.sellers.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        querystring: ZPageQuery,
        response: { 200: pageOf(ZWebhook), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { rows, total } = await listWebhooks(app.db, { sellerId: request.params.id, ...request.query })
      return { data: rows.map(toWebhook), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.get(
    '/webhooks/:id',
    {
      onRequest: requirePermission('adm.sellers.read'),
      schema: {
        tags: TAGS,
        operationId: 'admGetWebhook',
        summary: 'Get a webhook endpoint',
        description: 'Never its secret. Needs `adm.sellers.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        response: { 200: ZWebhook, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => toWebhook(await getWebhook(app.db, request.params.id)),
  )

  app.put(
    '/webhooks/:id',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admUpdateWebhook',
        summary: 'Change a webhook endpoint',
        description:
          "Only the fields given change. A new URL is checked like a new endpoint's. `active: false` ends its pending deliveries; " +
          '`active: true` turns on an endpoint the platform turned off. Needs `adm.sellers.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        body: ZUpdateWebhook,
        response: { 200: ZWebhook, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { url, events, description, active } = request.body
      return toWebhook(await updateWebhook(app.db, { id: request.params.id, url, events, description, active, policy, actor: actorOf(request) }))
    },
  )

  app.delete(
    '/webhooks/:id',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admDeleteWebhook',
        summary: 'Delete a webhook endpoint',
        description: 'With its deliveries: nothing more is sent to it. Needs `adm.sellers.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        response: { 204: z.undefined().describe('Deleted'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteWebhook(app.db, { id: request.params.id, actor: actorOf(request) })
      return reply.code(204).send()
    },
  )

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admRotateWebhookSecret',
        summary: "Rotate a webhook endpoint's signing secret",
        description:
          'Answers the new secret, shown this once. For 24 hours every request carries two `v1=` signatures, by the new and the old ' +
          'secret, so the receiver can switch when it likes; a secret replaced again within those hours stops at once. Needs `adm.sellers.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        response: { 200: ZWebhookWithSecret, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { endpoint, secret } = await rotateWebhookSecret(app.db, { id: request.params.id, secretKey, actor: actorOf(request) })
      return { ...toWebhook(endpoint), secret }
    },
  )

  app.post(
    '/webhooks/:id/ping',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admPingWebhook',
        summary: 'Send a test event to a webhook endpoint',
        description:
          'Queues a `webhook.ping` event (`data: {webhook_id}`) to this endpoint only, whatever it subscribes to and even when it is turned off; ' +
          'its delivery shows in the deliveries. Needs `adm.sellers.write`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        response: { 202: ZPingAccepted, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { eventId } = await pingWebhook(app.db, { id: request.params.id, actor: actorOf(request) })
      return reply.code(202).send({ event_id: eventId })
    },
  )

  app.get(
    '/webhooks/:id/deliveries',
    {
      onRequest: requirePermission('adm.sellers.read'),
      schema: {
        tags: TAGS,
        operationId: 'admListWebhookDeliveries',
        summary: "List a webhook endpoint's deliveries",
        description:
          'Newest first: each event sent (or to be sent) to the endpoint, its attempts, the last answer and the next attempt. ' +
          'Failures are retried with a doubling, jittered delay for 3 days. Needs `adm.sellers.read`.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        querystring: ZPageQuery,
        response: { 200: pageOf(ZWebhookDelivery), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { rows, total } = await listWebhookDeliveries(app.db, { id: request.params.id, ...request.query })
      return { data: rows.map(toWebhookDelivery), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.post(
    '/webhooks/:id/deliveries/:delivery_id/redeliver',
    {
      onRequest: requirePermission('adm.sellers.write'),
      schema: {
        tags: TAGS,
        operationId: 'admRedeliverWebhook',
        summary: 'Send a delivered or failed event again',
        description:
          'Queues a new delivery of the same event (same `Boxoffice-Event-Id`) to the endpoint, due now, and answers it. ' +
          "Another endpoint's delivery: 404. Needs `adm.sellers.write`.",
        security: STAFF_SECURITY,
        params: ZWebhookDeliveryParams,
        response: { 202: ZWebhookDelivery, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const delivery = await redeliverWebhook(app.db, { id: request.params.id, deliveryId: request.params.delivery_id, actor: actorOf(request) })
      return reply.code(202).send(toWebhookDelivery(delivery))
    },
  )
}
