import type { Admission } from './http/admission.js'
import type { Config } from './config.js'
import type { Database, Db } from './db/database.js'
import type { Limits } from './http/rate-limits.js'
import type { OutboxWorker } from './outbox/worker.js'
import type { Secrets } from './secrets.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    database: Database
    db: Db
    secrets: Secrets
    info: { name: string; version: string; startedAt: Date }
    /** Priority admission while saturated: checkouts before new baskets. */
    admission: Admission
    outbox: OutboxWorker
    /** Attempt counters of the authentication routes, shared by every replica through Redis when set. */
    limits: Limits
  }
}
