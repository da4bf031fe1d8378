import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { basketRoutes } from './baskets.routes.js'
import { catalogRoutes } from './catalog.routes.js'
import { registerSellerAuth } from './seller-auth.js'
import { sellerRoutes } from './seller.routes.js'

/** `/stf/v1`: partner storefronts, HTTP Basic on every call. */
export const storefront: FastifyPluginAsyncZod = async (app) => {
  await registerSellerAuth(app)
  await app.register(sellerRoutes)
  await app.register(catalogRoutes)
  await app.register(basketRoutes)
  if (app.config.benchMode) {
    const { benchStorefrontRoutes } = await import('../bench/bench.routes.js')
    await app.register(benchStorefrontRoutes)
  }
}
