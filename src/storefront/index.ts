import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'

/** `/stf/v1`: partner storefronts, HTTP Basic on every call. */
export const storefront: FastifyPluginAsyncZod = async () => {}
