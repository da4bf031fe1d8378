import type { FastifyInstance, RouteOptions } from 'fastify'
import { z } from 'zod'

/**
 * Adds header fields to the headers schema of every route registered after it in this scope:
 * validated like the route's own headers, and listed as parameters of each operation in the
 * OpenAPI document (so that a generated client offers them). `headersOf` may look at the
 * route, e.g. at its `security`, and answer no fields.
 */
export function declareHeaders(app: FastifyInstance, headersOf: (route: RouteOptions) => z.ZodRawShape) {
  app.addHook('onRoute', (route) => {
    const shape = headersOf(route)
    if (Object.keys(shape).length === 0) return
    const headers = route.schema?.headers
    route.schema = { ...route.schema, headers: headers instanceof z.ZodObject ? headers.extend(shape) : z.object(shape) }
  })
}
