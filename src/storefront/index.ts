import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { authRoutes } from './auth.routes.js'
import { basketRoutes } from './baskets.routes.js'
import { catalogRoutes } from './catalog.routes.js'
import { registerCompression } from '../platform/http/compression.js'
import { registerCatalogueCache } from './catalogue-cache.js'
import { declareCustomerTokenHeader } from './customer-auth.js'
import { registerOrderTokenHeader } from './order-token-auth.js'
import { registerEndUserAddress } from './end-user-address.js'
import { meRoutes } from './me.routes.js'
import { orderRoutes } from './orders.routes.js'
import { paymentRoutes } from './payments.routes.js'
import { refundRoutes } from './refunds.routes.js'
import { seatMapRoutes } from './seat-map.routes.js'
import { transferRoutes } from './transfers.routes.js'
import { seatingPlanRoutes } from './seating-plans.routes.js'
import { registerSellerAuth } from './seller-auth.js'
import { sellerRoutes } from './seller.routes.js'
import { ticketHolderRoutes } from './ticket-holders.routes.js'
import { waitingListRoutes } from './waiting-list.routes.js'

/** `/stf/v1`: partner storefronts, HTTP Basic on every call; customers add `X-Customer-Token`, a guest's order its `X-Order-Token`. */
export const storefront: FastifyPluginAsyncZod = async (app) => {
  await registerSellerAuth(app)
  registerEndUserAddress(app)
  // Before the cache: it keeps answers as they go out, compressed.
  registerCompression(app)
  registerCatalogueCache(app)
  declareCustomerTokenHeader(app)
  registerOrderTokenHeader(app)
  await app.register(sellerRoutes)
  await app.register(authRoutes, { prefix: '/auth' })
  await app.register(meRoutes)
  await app.register(catalogRoutes)
  await app.register(basketRoutes)
  await app.register(orderRoutes)
  await app.register(paymentRoutes)
  await app.register(refundRoutes)
  await app.register(transferRoutes)
  await app.register(ticketHolderRoutes)
  await app.register(waitingListRoutes)
  await app.register(seatingPlanRoutes)
  await app.register(seatMapRoutes)
}
