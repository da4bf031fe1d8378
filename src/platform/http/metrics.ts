import type { FastifyInstance } from 'fastify'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { PoolStats } from '../db/database.js'

export type MetricsSources = {
  poolStats: () => PoolStats
  /** Emails by outbox status, read when Prometheus scrapes. */
  outboxBacklog: () => Promise<Record<string, number>>
}

/**
 * Prometheus metrics at `GET /metrics`: request rate and latency by route and status,
 * database pool usage, outbox backlog, and the process defaults. One registry per app,
 * so that several apps in one process (tests) do not share counters.
 */
export function registerMetrics(app: FastifyInstance, sources: MetricsSources) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const labelNames = ['method', 'route', 'status'] as const
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = sources.poolStats()
      this.set({ state: 'total' }, stats.total)
      this.set({ state: 'idle' }, stats.idle)
      this.set({ state: 'waiting' }, stats.waiting)
    },
  })
  new Gauge({
    name: 'outbox_emails',
    help: 'Emails in the outbox by status (pending = backlog, dead = gave up)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      try {
        for (const [status, count] of Object.entries(await sources.outboxBacklog())) this.set({ status }, count)
      } catch {
        // The database being down must not fail the scrape of everything else.
      }
    },
  })

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    if (route === '/metrics') return
    const labels = { method: request.method, route, status: String(reply.statusCode) }
    requests.inc(labels)
    duration.observe(labels, reply.elapsedTime / 1000)
  })

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  )
}
