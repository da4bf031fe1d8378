import fp from 'fastify-plugin'
import { bootstrapAdmin } from '../domain/staff/bootstrap-admin.js'
import { ensureBuiltins } from '../domain/staff/ensure-builtins.js'
import type { Config } from '../platform/config.js'
import { isDatabaseUnavailable } from '../platform/db/errors.js'

const RETRY_EVERY_MS = 2000

/**
 * Restores the reference data on every start (built-in permissions, the admin role) and creates
 * the bootstrap admin. A database that is unreachable right now does not stop the start (health
 * answers 503 meanwhile): the step is retried in the background until it succeeds.
 */
export const referenceData = fp<{ config: Config }>(
  async (app, { config }) => {
    const seed = async () => {
      await ensureBuiltins(app.db)
      if (await bootstrapAdmin(app.db, config.admin)) app.log.info('bootstrap admin user created')
    }
    let retry: NodeJS.Timeout | undefined
    const retryLater = () => {
      retry = setTimeout(() => {
        seed().catch((error) => {
          if (!isDatabaseUnavailable(error)) return app.log.error({ err: error }, 'start-up data step failed')
          retryLater()
        })
      }, RETRY_EVERY_MS)
      retry.unref()
    }
    app.addHook('onClose', async () => clearTimeout(retry))
    try {
      await seed()
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error
      app.log.warn({ err: error }, 'database unreachable at start; retrying the start-up data step in the background')
      retryLater()
    }
  },
  { name: 'reference-data', dependencies: ['database'] },
)
