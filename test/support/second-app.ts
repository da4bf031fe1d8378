import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { openDatabase } from '../../src/platform/db/database.js'
import { testConfig } from '../build-app.js'
import { testDatabaseUrl } from './database.js'

/**
 * Another app over this worker's PostgreSQL database, with its own pool and its own listening
 * connection, as a separate replica would have. PostgreSQL only (`usesPostgres()`).
 */
export async function buildSecondApp(): Promise<{ app: FastifyInstance; close: () => Promise<void> }> {
  const database = await openDatabase({ url: await testDatabaseUrl() })
  const app = await buildApp({ config: testConfig(), database, startWorkers: false })
  return {
    app,
    close: async () => {
      await app.close()
      await database.close()
    },
  }
}
