import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { TicketCodes } from '../domain/checkin/ticket-codes.js'
import { authenticateDevice } from './device-auth.js'
import { listRoutes } from './lists.routes.js'
import { pairRoutes } from './pair.routes.js'
import { scanRoutes } from './scans.routes.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Signs and verifies tickets' codes (Ed25519, keys stored per seller); ticket-codes-plugin.ts. */
    ticketCodes: TicketCodes
  }
}

/**
 * `/chk/v1`: door check-in. Pairing is open (a single-use code, rate limited); every other route
 * needs a paired device's token, which opens nothing outside this group.
 */
export const checkin: FastifyPluginAsyncZod = async (app) => {
  app.decorateRequest('device', null)
  await app.register(pairRoutes)
  await app.register(async (scope) => {
    scope.addHook('onRequest', authenticateDevice)
    await scope.register(listRoutes)
    await scope.register(scanRoutes)
  })
}
