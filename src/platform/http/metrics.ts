import type { Admission } from './admission.js'
import { hash, timingSafeEqual } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { PoolStats } from '../db/database.js'
import type { OutboxWorker } from '../outbox/worker.js'
import { AppError } from '../errors.js'
import { RequestMetrics } from './request-metrics.js'

export type MetricsSources = {
  /** `METRICS_TOKEN`: serve `/metrics` on the API port to this Bearer token. */
  token: string | undefined
  /** `METRICS_PORT`: serve `/metrics` on this port of 127.0.0.1, once the app listens. */
  port: number | undefined
  poolStats: () => PoolStats
  /** Emails by outbox status, read when Prometheus scrapes. */
  outboxBacklog: () => Promise<Record<string, number>>
  /** Webhook deliveries by status (pending = backlog, failed = gave up), read when Prometheus scrapes. */
  webhookBacklog: () => Promise<Record<string, number>>
  /** Heard after every delivery attempt, of each kind. */
  outbox: Pick<OutboxWorker, 'onAttempt'>
  admission: Pick<Admission, 'state'>
  /** The holds' turns per inventory (src/domain/inventory/hold-queue.ts), in all. */
  holds: { state(): { running: number; waiting: number } }
}

const digest = (value: string) => hash('sha256', value, 'buffer')

/**
 * Prometheus metrics: request rate and latency by route and status, database pool usage, outbox
 * backlog, and the process defaults. One registry per app, so that several apps in one process
 * (tests) do not share counters.
 *
 * They tell an outsider the routes, the load and the process's memory, so `GET /metrics` is
 * served only where asked for: on the API port to `Authorization: Bearer <METRICS_TOKEN>`
 * (401 otherwise), and on `METRICS_PORT` of 127.0.0.1 (for a scraper on the same host or pod).
 * With neither, nowhere (404 like any unknown path).
 */
export function registerMetrics(app: FastifyInstance, sources: MetricsSources) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const answered = new RequestMetrics({
    requests: { name: 'http_requests_total', help: 'HTTP requests answered' },
    duration: { name: 'http_request_duration_seconds', help: 'HTTP request latency', buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
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
    name: 'admission_requests',
    help: 'Priority admission while saturated: checkouts in progress (first) and new baskets waiting for them (waiting)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const { first, waiting } = sources.admission.state()
      this.set({ state: 'first' }, first)
      this.set({ state: 'waiting' }, waiting)
    },
  })
  new Gauge({
    name: 'hold_queue_holds',
    help: 'New baskets on their way to the database (running) and waiting their turn, for an inventory or for a hold in flight (waiting), in all',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const { running, waiting } = sources.holds.state()
      this.set({ state: 'running' }, running)
      this.set({ state: 'waiting' }, waiting)
    },
  })
  // Backlogs read from the database at each scrape; a database that is down must not fail the
  // scrape of everything else.
  const statusGauge = (name: string, help: string, read: () => Promise<Record<string, number>>) =>
    new Gauge({
      name,
      help,
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        try {
          for (const [status, count] of Object.entries(await read())) this.set({ status }, count)
        } catch {
          // Left as last scraped.
        }
      },
    })
  statusGauge('outbox_emails', 'Emails in the outbox by status (pending = backlog, failed = gave up)', sources.outboxBacklog)
  statusGauge('webhook_deliveries', 'Webhook deliveries by status (pending = backlog, failed = gave up)', sources.webhookBacklog)
  const attempts = new Counter({
    name: 'outbox_attempts_total',
    help: 'Outbox delivery attempts by kind (email, webhook) and outcome (delivered, retry, gave_up)',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
  })
  const attemptDuration = new Histogram({
    name: 'outbox_attempt_duration_seconds',
    help: 'How long an outbox delivery attempt took (a webhook receiver answering, an SMTP server accepting)',
    labelNames: ['kind'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  sources.outbox.onAttempt((kind, outcome, durationMs) => {
    attempts.inc({ kind, outcome })
    attemptDuration.observe({ kind }, durationMs / 1000)
  })

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    if (route !== '/metrics') answered.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })

  if (sources.token) {
    const expected = digest(`Bearer ${sources.token}`)
    const authorized = (request: FastifyRequest) => timingSafeEqual(digest(request.headers.authorization ?? ''), expected)
    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      if (!authorized(request)) throw new AppError('unauthorized', { headers: { 'www-authenticate': 'Bearer realm="metrics"' } })
      return reply.type(registry.contentType).send(await registry.metrics())
    })
  }

  if (sources.port !== undefined) {
    const port = sources.port
    let server: Server | undefined
    app.addHook('onListen', async () => {
      server = createServer((request, response) => {
        if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
          response.writeHead(404).end()
          return
        }
        registry.metrics().then(
          (body) => response.writeHead(200, { 'content-type': registry.contentType }).end(body),
          () => response.writeHead(500).end(),
        )
      })
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject)
        server!.listen({ port, host: '127.0.0.1' }, resolve)
      })
      app.log.info({ port }, 'metrics served on 127.0.0.1')
    })
    app.addHook('onClose', async () => {
      if (server?.listening) await new Promise((resolve) => server!.close(resolve))
    })
  }
}
