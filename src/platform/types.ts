import type { AvailabilityMemo } from '../domain/inventory/availability-memo.js'
import type { SellerAuthenticator } from '../domain/sellers/seller-authenticator.js'
import type { Config } from './config.js'
import type { Database, Db } from './db/database.js'
import type { Limits } from './http/rate-limits.js'
import type { OutboxWorker } from './mail/outbox-worker.js'
import type { Secrets } from './secrets.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    database: Database
    db: Db
    secrets: Secrets
    info: { name: string; version: string; startedAt: Date }
    outbox: OutboxWorker
    /** Attempt counters of the authentication routes, shared by every replica through Redis when set. */
    limits: Limits
    /** Verifies storefront credentials, with a cache every process keeps coherent. */
    sellerAuth: SellerAuthenticator
    /** Earlier readings of availability that refuse a rush without a round trip each, kept coherent like sellerAuth. */
    availability: AvailabilityMemo
  }
}
