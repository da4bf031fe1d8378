import { isIP } from 'node:net'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { AppError } from '../platform/errors.js'
import { declareHeaders } from '../platform/http/route-headers.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The end user's address as the partner's backend saw it (`X-End-User-IP`), or null without the header. */
    endUserIp: string | null
  }
}

export const END_USER_IP_HEADER = 'x-end-user-ip'

const ZEndUserIpHeader = {
  [END_USER_IP_HEADER]: z
    .union([z.ipv4(), z.ipv6()])
    .optional()
    .describe(
      "The end user's IP address (IPv4 or IPv6) as the storefront's backend saw it. Believed because the seller's " +
        'credentials vouch for it; the per-address limits of customer sign-in and emails count per seller and this ' +
        'address. Without it they count per connection, with higher limits.',
    ),
}

const invalid = () => new AppError('validation_error', { details: [{ path: `headers.${END_USER_IP_HEADER}`, message: 'must be an IPv4 or IPv6 address' }] })

/** The `X-End-User-IP` of a call, checked; null without the header. */
function readEndUserIp(request: FastifyRequest): string | null {
  const header = request.headers[END_USER_IP_HEADER]
  if (header === undefined || header === '') return null
  if (typeof header !== 'string' || isIP(header) === 0) throw invalid()
  return header
}

/**
 * `X-End-User-IP` on every storefront operation: declared in each operation's headers (for the
 * OpenAPI document) and read right after the seller's credentials, so the limits that run before
 * the body is parsed can key on it. Register before the routes, after the seller's authentication.
 */
export function registerEndUserAddress(app: FastifyInstance) {
  app.decorateRequest('endUserIp', null)
  declareHeaders(app, () => ZEndUserIpHeader)
  // Synchronous: it runs on every storefront call, and most carry no such header.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      request.endUserIp = readEndUserIp(request)
      done()
    } catch (error) {
      done(error as Error)
    }
  })
}
