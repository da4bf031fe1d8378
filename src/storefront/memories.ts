import fp from 'fastify-plugin'
import { createAvailabilityMemo, type AvailabilityMemo } from '../domain/inventory/availability-memo.js'
import { createHoldQueue, type HoldQueue } from '../domain/inventory/hold-queue.js'
import { createSellerAuthenticator, type SellerAuthenticator } from '../domain/sellers/seller-authenticator.js'
import type { Config } from '../platform/config.js'
import type { Secrets } from '../platform/secrets.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Verifies storefront credentials, with a cache every process keeps coherent. */
    sellerAuth: SellerAuthenticator
    /** Earlier readings of availability that refuse a rush without a round trip each, kept coherent like sellerAuth. */
    availability: AvailabilityMemo
    /** Turns for the holds of each inventory in this process. */
    holds: HoldQueue
  }
}

/**
 * `app.sellerAuth`: verified storefront credentials and live customer sessions kept in memory.
 * It listens for seller changes from the start and stops listening when the app closes.
 */
export const sellerAuthenticator = fp<{ secrets: Secrets }>(
  async (app, { secrets }) => {
    const sellerAuth = createSellerAuthenticator({
      database: app.database,
      tokenHmac: secrets.tokenHmac,
      onError: (error) => app.log.warn({ err: error }, 'could not record API key use'),
    })
    await sellerAuth.start()
    app.decorate('sellerAuth', sellerAuth)
    app.addHook('onClose', () => sellerAuth.stop())
  },
  { name: 'seller-authenticator', dependencies: ['database'] },
)

/** `app.availability`: the memory of sold-out inventories, listening for freed tickets while the app runs; `app.holds`: the holds' turns. */
export const availabilityMemo = fp<{ config: Config }>(
  async (app, { config }) => {
    const availability = createAvailabilityMemo({ database: app.database, maxAgeMs: config.availabilityMemoMs })
    await availability.start()
    app.decorate('availability', availability)
    app.decorate(
      'holds',
      createHoldQueue({
        perInventory: config.holdsPerInventory,
        inFlight: config.holdsInFlight,
        groupBudgetMs: config.holdsGroupBudgetMs,
      }),
    )
    app.addHook('onClose', () => availability.stop())
  },
  { name: 'availability-memo', dependencies: ['database'] },
)
