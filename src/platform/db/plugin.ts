import fp from 'fastify-plugin'
import type { Config } from '../config.js'
import { openDatabase, type Database } from './database.js'

export type DatabasePluginOptions = {
  config: Config
  /** An open, migrated database to use (tests): the app then leaves it open when it closes. */
  database?: Database | undefined
}

/**
 * `app.database` and `app.db`: opens and migrates the configured database (PostgreSQL, or the
 * embedded PGlite), and closes it when the app closes, after everything registered later.
 */
export const databasePlugin = fp<DatabasePluginOptions>(
  async (app, { config, database: given }) => {
    const database =
      given ??
      (await openDatabase({
        url: config.databaseUrl,
        dataDir: config.dataDir,
        poolMax: config.db.poolMax,
        connectTimeoutMs: config.db.connectTimeoutMs,
        statementTimeoutMs: config.db.statementTimeoutMs,
        preparedStatements: config.db.preparedStatements,
        onPoolError: (error) => app.log.warn({ err: error }, 'database connection failed'),
      }))
    app.decorate('database', database)
    app.decorate('db', database.db)
    if (given) return
    app.addHook('onClose', () => database.close())
    const functions = await database.migrate()
    if (functions.applied.length > 0) app.log.info({ release: functions.release, files: functions.applied }, 'database functions applied')
    // A replica of an older build restarting during a rolling deploy: the newer bodies stay.
    if (functions.kept.length > 0) {
      app.log.warn(
        { release: functions.release, kept: functions.kept },
        'database functions kept as a newer release applied them (this build is older than the database)',
      )
    }
  },
  { name: 'database' },
)
