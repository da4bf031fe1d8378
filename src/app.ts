import { readFileSync } from 'node:fs'
import cors from '@fastify/cors'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'
import { Redis } from 'ioredis'
import { pino, type Logger } from 'pino'
import { backoffice } from './backoffice/index.js'
import { bootstrapAdmin } from './domain/staff/bootstrap-admin.js'
import { ensureBuiltins } from './domain/staff/ensure-builtins.js'
import { iam } from './iam/index.js'
import { staffAuth } from './iam/staff-auth.js'
import type { Config } from './platform/config.js'
import { openDatabase, type Database } from './platform/db/database.js'
import { isDatabaseUnavailable } from './platform/db/errors.js'
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './platform/http/error-handler.js'
import { registerGracefulClose } from './platform/http/graceful-close.js'
import { registerInputGuard } from './platform/http/input-guard.js'
import { registerMetrics } from './platform/http/metrics.js'
import { registerOpenApi } from './platform/http/openapi.js'
import { RequestLogController } from './platform/http/request-logging.js'
import { createLimits } from './platform/http/rate-limits.js'
import { registerSecurityHeaders } from './platform/http/security-headers.js'
import { registerTraceHeader, traceIdFor } from './platform/http/trace.js'
import { createMailer } from './platform/mail/mailer.js'
import { createOutboxWorker } from './platform/mail/outbox-worker.js'
import { countEmailsByStatus } from './platform/mail/outbox.repo.js'
import { resolveSecrets } from './platform/secrets.js'
import './platform/types.js'
import { createAvailabilityMemo } from './domain/inventory/availability-memo.js'
import { createSellerAuthenticator } from './domain/sellers/seller-authenticator.js'
import { customerAuth } from './storefront/customer-auth.js'
import { storefront } from './storefront/index.js'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string }

/** How long a close waits for requests in flight; below the server's 10 s grace period. */
const DRAIN_TIMEOUT_MS = 8000

export type BuildAppOptions = {
  config: Config
  /** An open, migrated database to use (tests); the app then leaves it open on close. */
  database?: Database
  /** A pino logger to write to; by default one at `config.logLevel` on stdout. */
  logger?: Logger
  /** Start background workers such as the outbox (default true). */
  startWorkers?: boolean
}

/** Builds the application without listening: platform first, then the three route groups. */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = options
  const logger = options.logger ?? pino({ level: config.logLevel, redact: ['req.headers.authorization'] })

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: traceIdFor,
    logController: new RequestLogController(),
    bodyLimit: 1024 * 1024,
    trustProxy: config.trustProxy ? [...config.trustProxy] : false,
    // Our own 503 (in the error envelope) answers requests that arrive while closing.
    return503OnClosing: false,
    // `/stf/v1/events/` is `/stf/v1/events`: a trailing slash is no reason to fail a call.
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: true },
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
  registerInputGuard(app)
  const drain = registerGracefulClose(app)

  const ownsDatabase = !options.database
  const database =
    options.database ??
    (await openDatabase({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      poolMax: config.db.poolMax,
      connectTimeoutMs: config.db.connectTimeoutMs,
      statementTimeoutMs: config.db.statementTimeoutMs,
      preparedStatements: config.db.preparedStatements,
      onPoolError: (error) => app.log.warn({ err: error }, 'database connection lost'),
    }))
  if (ownsDatabase) await database.migrate()
  // Reference data (built-in permissions, the admin role) is restored on every start.
  // Reference data and the bootstrap admin. A database that is unreachable right now does not
  // stop the start (health answers 503 meanwhile): the step is retried until it succeeds.
  const seedReferenceData = async () => {
    await ensureBuiltins(database.db)
    if (await bootstrapAdmin(database.db, config.admin)) app.log.info('bootstrap admin user created')
  }
  let startupRetry: NodeJS.Timeout | undefined
  const retryStartup = () => {
    startupRetry = setTimeout(() => {
      seedReferenceData().catch((error) => {
        if (!isDatabaseUnavailable(error)) return app.log.error({ err: error }, 'start-up data step failed')
        retryStartup()
      })
    }, 2000)
    startupRetry.unref()
  }
  try {
    await seedReferenceData()
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error
    app.log.warn({ err: error }, 'database unreachable at start; retrying the start-up data step in the background')
    retryStartup()
  }

  const secrets = await resolveSecrets(config)
  app.decorate('config', config)
  app.decorate('database', database)
  app.decorate('db', database.db)
  app.decorate('secrets', secrets)
  app.decorate('info', { name: pkg.name, version: pkg.version, startedAt: new Date() })

  const sellerAuth = createSellerAuthenticator({
    database,
    tokenHmac: secrets.tokenHmac,
    onError: (error) => app.log.warn({ err: error }, 'could not record API key use'),
  })
  await sellerAuth.start()
  app.decorate('sellerAuth', sellerAuth)

  const availability = createAvailabilityMemo({ database, maxAgeMs: config.availabilityMemoMs })
  await availability.start()
  app.decorate('availability', availability)

  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger: app.log as Logger })
  const outbox = createOutboxWorker({ db: database.db, mailer, logger: app.log as Logger, pollMs: config.outboxPollMs })
  app.decorate('outbox', outbox)

  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 }) : undefined
  redis?.on('error', (error) => app.log.warn({ err: error.message }, 'redis unavailable'))

  registerSecurityHeaders(app)
  app.decorate('limits', createLimits({ redis, keyPrefix: config.redisKeyPrefix }))
  await registerOpenApi(app, pkg.version)
  await app.register(staffAuth)
  await app.register(customerAuth)
  registerMetrics(app, {
    ...config.metrics,
    poolStats: database.poolStats,
    outboxBacklog: () => countEmailsByStatus(database.db),
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

  app.addHook('onReady', async () => {
    if (options.startWorkers !== false) outbox.start()
  })
  app.addHook('onClose', async () => {
    clearTimeout(startupRetry)
    // Requests still in flight finish on an open database; the server closes within the grace period.
    const abandoned = await drain(DRAIN_TIMEOUT_MS)
    if (abandoned > 0) app.log.warn({ abandoned }, 'closing with requests still in flight')
    await outbox.stop()
    await sellerAuth.stop()
    await availability.stop()
    mailer.close()
    if (redis) await redis.quit().catch(() => undefined)
    if (ownsDatabase) await database.close()
  })
  return app
}
