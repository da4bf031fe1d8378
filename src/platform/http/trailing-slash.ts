import type { IncomingMessage } from 'node:http'

/**
 * Fastify's `rewriteUrl` option: a read with a trailing slash is the read without it
 * (`GET /stf/v1/events/?limit=5` is `GET /stf/v1/events?limit=5`). Reads only: in a write, a
 * trailing slash may be an empty id (`DELETE /stf/v1/baskets/{id}/coupon/` without its item id),
 * which must not land on the sibling route (`DELETE /stf/v1/baskets/{id}/coupon`).
 */
export function withoutTrailingSlash(request: IncomingMessage): string {
  const url = request.url ?? '/'
  if (request.method !== 'GET' && request.method !== 'HEAD') return url
  const query = url.indexOf('?')
  const path = query < 0 ? url : url.slice(0, query)
  if (path.length <= 1 || !path.endsWith('/')) return url
  return (path.replace(/\/+$/, '') || '/') + (query < 0 ? '' : url.slice(query))
}
