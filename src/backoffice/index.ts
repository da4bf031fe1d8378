import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { authenticateStaff } from '../platform/auth/staff-auth.js'
import { orderRoutes } from './orders.routes.js'

/** `/adm/v1`: the back office, staff Bearer tokens checked against permissions. */
export const backoffice: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', authenticateStaff)
  await app.register(orderRoutes)
}
