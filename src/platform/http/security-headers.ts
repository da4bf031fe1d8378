import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import helmet from 'helmet'

/** The headers helmet's defaults set on a response, and those it removes. Computed once. */
function helmetHeaders(): { set: Record<string, string>; removed: string[] } {
  const set: Record<string, string> = {}
  const removed: string[] = []
  const response = {
    setHeader: (name: string, value: string) => {
      set[name.toLowerCase()] = value
    },
    removeHeader: (name: string) => {
      removed.push(name.toLowerCase())
    },
  }
  helmet()({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error
  })
  return { set, removed }
}

/**
 * helmet's default security headers on every response (CSP, HSTS, nosniff, frame options …).
 * The policy is the same for every route, so it is computed once at start and copied onto each
 * reply, rather than running helmet's middleware chain (which rebuilds its configuration) per
 * request as `@fastify/helmet` does: that cost 5–7 % of the CPU of a cheap call. The docs UI
 * replaces the CSP with its own in `onSend`.
 */
export function registerSecurityHeaders(app: FastifyInstance) {
  const { set } = helmetHeaders()
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(set)
    done()
  })
}
