import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { afterAll, beforeAll } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig, type Config } from '../src/platform/config.js'
import { resetDatabase, testDatabase } from './support/database.js'

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long'
/** Every test app seals the tickets' signing keys under this one, as replicas share one. */
export const TEST_TICKET_KEYS_SECRET = 'test-ticket-keys-secret-of-at-least-32-characters'

export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    JWT_SECRET: TEST_JWT_SECRET,
    TICKET_KEYS_SECRET: TEST_TICKET_KEYS_SECRET,
    LOG_LEVEL: 'silent',
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'boxoffice-test-')),
    SEED_DEMO: 'false',
    // The catalogue cache answers up to a second late by design (a hold or a sale shows within
    // it): tests of everything else read fresh answers. stf-catalogue-cache.test.ts tests it.
    CATALOGUE_CACHE_MS: '0',
    ...env,
  })
}

export type TestAppOptions = {
  env?: Record<string, string | undefined>
  logger?: Logger
  /** Adds routes or hooks before the app is ready (tests of the platform itself). */
  extend?: (app: FastifyInstance) => unknown
}

/** An app over this worker's database, not listening; the caller closes it. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<FastifyInstance> {
  const database = await testDatabase()
  const app = await buildApp({
    config: testConfig(options.env),
    database,
    startWorkers: false,
    ...(options.logger ? { logger: options.logger } : {}),
  })
  await options.extend?.(app)
  await app.ready()
  return app
}

/**
 * One app for a test file, over a freshly emptied database:
 * `const ctx = useTestApp(); ... ctx.app.inject(...)`.
 */
export function useTestApp(options: TestAppOptions = {}) {
  const ctx = {} as { app: FastifyInstance }
  beforeAll(async () => {
    await resetDatabase(await testDatabase())
    ctx.app = await buildTestApp(options)
  })
  afterAll(async () => {
    await ctx.app?.close()
  })
  return ctx
}
