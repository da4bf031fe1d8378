import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { serviceRoutes } from './service.routes.js'

/** `/iam/v1`: staff identity and access. */
export const iam: FastifyPluginAsyncZod = async (app) => {
  await app.register(serviceRoutes)
}
