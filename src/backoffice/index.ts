import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { authenticateStaff } from '../iam/staff-auth.js'
import { affiliateRoutes } from './affiliates.routes.js'
import { apiKeyRoutes } from './api-keys.routes.js'
import { checkinListRoutes } from './checkin-lists.routes.js'
import { couponRoutes } from './coupons.routes.js'
import { deviceRoutes } from './devices.routes.js'
import { eventRoutes } from './events.routes.js'
import { exportRoutes } from './exports.routes.js'
import { inventoryRoutes } from './inventories.routes.js'
import { inventorySeatRoutes } from './inventory-seats.routes.js'
import { orderRoutes } from './orders.routes.js'
import { paymentRoutes } from './payments.routes.js'
import { refundRoutes } from './refunds.routes.js'
import { reportRoutes } from './reports.routes.js'
import { seatingPlanRoutes } from './seating-plans.routes.js'
import { sellerRoutes } from './sellers.routes.js'
import { ticketKeyRoutes } from './ticket-keys.routes.js'
import { ticketRoutes } from './tickets.routes.js'
import { waitingListRoutes } from './waiting-list.routes.js'
import { webhookRoutes } from './webhooks.routes.js'

/**
 * `/adm/v1`: the back office. Every route needs a staff Bearer token (401) and then its own
 * permission (403), checked before the request is validated.
 */
export const backoffice: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', authenticateStaff)
  await app.register(sellerRoutes)
  await app.register(apiKeyRoutes)
  await app.register(affiliateRoutes)
  await app.register(eventRoutes)
  await app.register(inventoryRoutes)
  await app.register(inventorySeatRoutes)
  await app.register(seatingPlanRoutes)
  await app.register(couponRoutes)
  await app.register(orderRoutes)
  await app.register(ticketRoutes)
  await app.register(paymentRoutes)
  await app.register(refundRoutes)
  await app.register(reportRoutes)
  await app.register(exportRoutes)
  await app.register(webhookRoutes)
  await app.register(deviceRoutes)
  await app.register(ticketKeyRoutes)
  await app.register(checkinListRoutes)
  await app.register(waitingListRoutes)
}
