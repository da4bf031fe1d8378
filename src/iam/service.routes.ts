import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { errorResponses, ZErrorEnvelope, ZInstant } from '../platform/http/schemas.js'
import { PUBLIC } from './common.schemas.js'

const ZHealth = z.object({ status: z.literal('ok'), checks: z.object({ database: z.literal('ok') }) }).meta({ id: 'ServiceHealth' })
const ZHealthDown = ZErrorEnvelope.extend({
  status: z.literal('unavailable'),
  checks: z.object({ database: z.literal('down') }),
}).meta({ id: 'ServiceHealthDown' })
const ZInfo = z
  .object({
    name: z.string(),
    version: z.string(),
    started_at: ZInstant,
    uptime_seconds: z.number().int(),
  })
  .meta({ id: 'ServiceInfo' })

/** Health (the readiness probe: one database round trip) and service information. No auth. */
export const serviceRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/health',
    {
      // The readiness probe: its request lines are logged at debug while it answers 200.
      config: { probe: true },
      schema: {
        tags: ['iam'],
        operationId: 'getHealth',
        summary: 'Health check',
        security: PUBLIC,
        response: { 200: ZHealth, ...errorResponses(400), 503: ZHealthDown },
      },
    },
    async (request, reply) => {
      try {
        await app.database.ping()
        return { status: 'ok' as const, checks: { database: 'ok' as const } }
      } catch (error) {
        request.log.warn({ err: error }, 'health check: database down')
        return reply
          .code(503)
          .header('retry-after', '1')
          .send({
            code: 'service_unavailable' as const,
            message: 'The database cannot be reached',
            trace_id: request.id,
            status: 'unavailable' as const,
            checks: { database: 'down' as const },
          })
      }
    },
  )

  app.get(
    '/info',
    {
      schema: {
        tags: ['iam'],
        operationId: 'getServiceInfo',
        summary: 'Service information',
        security: PUBLIC,
        response: { 200: ZInfo, ...errorResponses(400) },
      },
    },
    async () => ({
      name: app.info.name,
      version: app.info.version,
      started_at: app.info.startedAt.toISOString(),
      uptime_seconds: Math.floor((Date.now() - app.info.startedAt.getTime()) / 1000),
    }),
  )
}
