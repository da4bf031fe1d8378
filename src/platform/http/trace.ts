import { randomUUID } from 'node:crypto'
import type { FastifyInstance, RawRequestDefaultExpression } from 'fastify'

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/

/**
 * The trace id of a request: a caller's `X-Request-Id` when it is short and made of safe
 * characters (it ends up in logs and headers), otherwise a fresh UUID.
 */
export function traceIdFor(request: RawRequestDefaultExpression): string {
  const incoming = request.headers['x-request-id']
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
}

/**
 * Every response carries `X-Trace-Id`, the same id as the request's log lines and error body.
 * A callback hook, not an async one: it runs on every request, and costs no promise.
 */
export function registerTraceHeader(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-trace-id', request.id)
    done()
  })
}
