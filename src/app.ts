import { readFileSync } from 'node:fs'
import cors from '@fastify/cors'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { validatorCompiler } from 'fastify-type-provider-zod'
import { pino, type Logger } from 'pino'
import { backoffice } from './backoffice/index.js'
import { checkin } from './checkin/index.js'
import { loopbackPairingWarning } from './checkin/loopback-pairing.js'
import { ticketCodesPlugin } from './checkin/ticket-codes-plugin.js'
import { webhookChannel } from './domain/webhooks/webhook-channel.js'
import { countDeliveriesByStatus } from './domain/webhooks/webhooks.repo.js'
import { iam } from './iam/index.js'
import { referenceData } from './iam/reference-data.js'
import { staffAuth } from './iam/staff-auth.js'
import type { Config } from './platform/config.js'
import type { Database } from './platform/db/database.js'
import { databasePlugin } from './platform/db/plugin.js'
import { admissionPlugin } from './platform/http/admission.js'
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './platform/http/error-handler.js'
import { drainFirst, registerGracefulClose } from './platform/http/graceful-close.js'
import { registerInputGuard } from './platform/http/input-guard.js'
import { registerMetrics } from './platform/http/metrics.js'
import { registerOpenApi } from './platform/http/openapi.js'
import { decoratePublicBaseUrl } from './platform/http/public-base-url.js'
import { limitsPlugin } from './platform/http/rate-limits.js'
import { RequestLogController, requestLogger } from './platform/http/request-logging.js'
import { scanPage } from './platform/http/scan-page.js'
import { serializerCompiler } from './platform/http/serializer.js'
import { registerSecurityHeaders } from './platform/http/security-headers.js'
import { registerTraceHeader, traceIdFor } from './platform/http/trace.js'
import { withoutTrailingSlash } from './platform/http/trailing-slash.js'
import { emailChannel } from './platform/mail/email-channel.js'
import { createMailer } from './platform/mail/mailer.js'
import { countEmailsByStatus } from './platform/mail/outbox.repo.js'
import { createHttpSender } from './platform/outbox/http-sender.js'
import { outboxPlugin } from './platform/outbox/plugin.js'
import { orderExpiryChannel } from './domain/payments/expire-orders.js'
import { resolveSecrets } from './platform/secrets.js'
import './platform/types.js'
import { catalogueCachePlugin } from './storefront/catalogue-cache.js'
import { customerAuth } from './storefront/customer-auth.js'
import { storefront } from './storefront/index.js'
import { availabilityMemo, sellerAuthenticator } from './storefront/memories.js'
import { createWaitingListServer, type WaitingListServer } from './domain/waiting-list/serve-waiting-list.js'
import { createExportRunner, type ExportRunner, exportSweepChannel } from './domain/reports/exports.js'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string }

/** How long a close waits for requests in flight; below the server's 10 s grace period. */
const DRAIN_TIMEOUT_MS = 8000

declare module 'fastify' {
  interface FastifyInstance {
    /** Serves the waiting lists (sql/serve_waiting_list.sql): by the outbox's worker, by the sweep, or by hand. */
    waitingList: WaitingListServer
    /** Writes exports in the background of this process (docs/exports.md); closed before the database. */
    exports: ExportRunner
  }
}

export type BuildAppOptions = {
  config: Config
  /** An open, migrated database to use (tests); the app then leaves it open on close. */
  database?: Database
  /** A pino logger to write to; by default one at `config.logLevel` on stdout. */
  logger?: Logger
  /** Start background workers such as the outbox (default true). */
  startWorkers?: boolean
}

/**
 * Builds the application without listening: platform first, then each resource as a plugin that
 * opens and closes itself (database, reference data, the storefront's memories, outbox, limits),
 * then the three route groups.
 */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = options
  const logger = options.logger ?? pino({ level: config.logLevel, redact: ['req.headers.authorization'] })

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: traceIdFor,
    logController: new RequestLogController(),
    childLoggerFactory: requestLogger,
    bodyLimit: 1024 * 1024,
    trustProxy: config.trustProxy ? [...config.trustProxy] : false,
    // Our own 503 (in the error envelope) answers requests that arrive while closing.
    return503OnClosing: false,
    routerOptions: { maxParamLength: 200 },
    // `GET /stf/v1/events/` is `GET /stf/v1/events`: a trailing slash is no reason to fail a read.
    rewriteUrl: withoutTrailingSlash,
    // Plugins open resources: the embedded database and its migrations take seconds, more on a
    // busy machine, and a migration of a large database longer still. No deadline of Fastify's own.
    pluginTimeout: 0,
    // Requests refused before routing, or by Node's HTTP parser, answer in the envelope too.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  })

  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  // Bodies are JSON only: anything else is 415, not a string handed to a handler.
  app.removeContentTypeParser('text/plain')
  registerTraceHeader(app)
  registerErrorHandling(app)
  await app.register(admissionPlugin, config.admission)
  registerInputGuard(app)
  const drain = registerGracefulClose(app)

  await app.register(databasePlugin, { config, database: options.database })
  await app.register(referenceData, { config })

  const secrets = await resolveSecrets(config)
  app.decorate('config', config)
  decoratePublicBaseUrl(app, config)
  app.decorate('secrets', secrets)
  app.decorate('info', { name: pkg.name, version: pkg.version, startedAt: new Date() })

  await app.register(ticketCodesPlugin, { secrets })
  await app.register(loopbackPairingWarning)
  await app.register(sellerAuthenticator, { secrets })
  await app.register(availabilityMemo, { config })
  await app.register(catalogueCachePlugin, { maxAgeMs: config.catalogueCacheMs })
  const waitingList = createWaitingListServer({ db: app.db, tokenHmac: secrets.tokenHmac, logger: app.log as Logger, sweepMs: config.waitingListSweepMs })
  app.decorate('waitingList', waitingList)
  const exportRunner = createExportRunner({ db: app.db, logger: app.log as Logger })
  app.decorate('exports', exportRunner)
  // Registered after the database: closed before it, so that a run cut short is recorded as failed.
  app.addHook('onClose', () => exportRunner.close())
  await app.register(outboxPlugin, {
    config,
    startWorker: options.startWorkers,
    // While buyers queue (a flash sale), emails and webhooks wait a few seconds rather than take their turns.
    busy: () => app.admission.state().saturated,
    channels: (scope) => {
      const log = scope.log as Logger
      const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger: log })
      const sender = createHttpSender({
        timeoutMs: config.webhooks.timeoutMs,
        allowPrivate: config.webhooks.allowPrivate,
        userAgent: `Boxoffice-Webhooks/${pkg.version}`,
      })
      return [
        emailChannel({ db: scope.db, mailer, logger: log }),
        webhookChannel({ db: scope.db, sender, logger: log, secretKey: secrets.webhookSecrets, retryBaseMs: config.webhooks.retryBaseMs }),
        waitingList.channel,
        orderExpiryChannel({ db: scope.db, codes: scope.ticketCodes, logger: log }),
        exportSweepChannel({ db: scope.db, staleSeconds: config.exportStaleSeconds, logger: log }),
      ]
    },
  })
  await app.register(limitsPlugin, { config })

  registerSecurityHeaders(app)
  await registerOpenApi(app, pkg.version)
  await app.register(staffAuth)
  await app.register(customerAuth)
  registerMetrics(app, {
    ...config.metrics,
    poolStats: app.database.poolStats,
    outboxBacklog: () => countEmailsByStatus(app.db),
    webhookBacklog: () => countDeliveriesByStatus(app.db),
    outbox: app.outbox,
    admission: app.admission,
    holds: app.holds,
  })

  // Storefront API keys must never reach a browser: CORS exists only for the staff groups.
  const staffCors = async (scope: FastifyInstance) => {
    if (config.corsOrigins.length > 0) {
      await scope.register(cors, { origin: [...config.corsOrigins], credentials: false, maxAge: 600 })
    }
  }
  await app.register(storefront, { prefix: '/stf/v1' })
  await app.register(
    async (scope) => {
      await staffCors(scope)
      await scope.register(iam)
    },
    { prefix: '/iam/v1' },
  )
  await app.register(
    async (scope) => {
      await staffCors(scope)
      await scope.register(backoffice)
    },
    { prefix: '/adm/v1' },
  )

  // Scanner devices: no CORS (a device token belongs in a gate's app, not a web page).
  await app.register(checkin, { prefix: '/chk/v1' })
  // The gate scanner page: a client of /chk/v1 on the same origin (docs/door.md).
  await app.register(scanPage)

  // Closing runs in the reverse order of registration: requests in flight finish first.
  await app.register(drainFirst, { drain, timeoutMs: DRAIN_TIMEOUT_MS })
  return app
}
