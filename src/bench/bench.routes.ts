import { sql } from 'drizzle-orm'
import type { FastifyPluginAsync } from 'fastify'
import { seedBench } from './seed-bench.js'

/**
 * Routes that exist only with BENCH_MODE=true, for `npm run bench`: baselines that do the same
 * work as a real route without authentication, and a seeding route (the embedded database
 * belongs to the server process, so the benchmark cannot seed it from outside).
 */
export const benchRoutes: FastifyPluginAsync = async (app) => {
  app.get('/ping', { schema: { hide: true } }, async () => ({ ok: true }))

  app.get('/db-ping', { schema: { hide: true } }, async () => {
    await app.db.execute(sql`select 1`)
    return { ok: true }
  })

  app.post('/seed', { schema: { hide: true } }, async () => seedBench(app))
}

/** The storefront twin of `/bench/ping`: the same work behind Basic authentication. */
export const benchStorefrontRoutes: FastifyPluginAsync = async (app) => {
  app.get('/bench/ping', { schema: { hide: true } }, async () => ({ ok: true }))
}
