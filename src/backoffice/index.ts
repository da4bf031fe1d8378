import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'

/** `/adm/v1`: the back office, staff Bearer tokens checked against permissions. */
export const backoffice: FastifyPluginAsyncZod = async () => {}
