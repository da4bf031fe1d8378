import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { openDatabase } from '../../src/platform/db/database.js'
import { testConfig } from '../build-app.js'
import { queryDatabase } from './commerce-invariants.js'
import { createScratchDatabase } from './database.js'
import { NO_RATE_LIMITS } from './limits.js'
import { startServerProcess, type ServerProcess } from './server-process.js'
import { eventually } from './smtp-sink.js'

/**
 * Reliability tests drive real server processes (`src/server.ts`, as `npm start` runs it) over
 * a PostgreSQL database of their own. Their data is set up through an app in this process on
 * the same database (the factories of test/factories), with the same secret, so that API keys
 * and tokens it issues are valid for the servers.
 */
export type Fixtures = { app: FastifyInstance; close(): Promise<void> }

/** An app over `databaseUrl` for setting up data; no workers, no listening. */
export async function openFixtures(databaseUrl: string, env: Record<string, string> = {}): Promise<Fixtures> {
  const database = await openDatabase({ url: databaseUrl, poolMax: 4 })
  await database.migrate()
  const app = await buildApp({ config: testConfig({ LOG_LEVEL: 'silent', ...env }), database, startWorkers: false })
  await app.ready()
  return {
    app,
    close: async () => {
      await app.close()
      await database.close()
    },
  }
}

/** A fresh database on the `TEST_DATABASE_URL` server. */
export const freshDatabase = () => createScratchDatabase(process.env.TEST_DATABASE_URL!)

/** Starts a server process over `databaseUrl` (quiet logs, no rate limits unless `env` sets them). */
export const startServer = (databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> =>
  startServerProcess({ LOG_LEVEL: 'warn', DB_POOL_MAX: '8', ...NO_RATE_LIMITS, ...env }, { databaseUrl })

export type Answer = { status: number; body: any; headers: Headers; ms: number; error?: string }

/**
 * A JSON call to a server. A connection that fails (refused, reset) answers status 0 with
 * the error, so that a test can count it instead of crashing.
 */
export async function callServer(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<Answer> {
  const started = performance.now()
  try {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    })
    const text = await res.text()
    let body: unknown = text
    try {
      body = text ? JSON.parse(text) : undefined
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, body, headers: res.headers, ms: performance.now() - started }
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause
    return { status: 0, body: undefined, headers: new Headers(), ms: performance.now() - started, error: cause?.code ?? (error as Error).name }
  }
}

/**
 * Calls again while the answer is 503 `service_unavailable` (with its `Retry-After`), as a
 * well-behaved client does: under a burst a server sheds load with fast 503s when no database
 * connection frees up within `DB_CONNECT_TIMEOUT_MS`. Nothing was written by such an answer.
 * `retries` counts the 503s met.
 */
export async function retrying(send: () => Promise<Answer>, counter?: { retries: number }, attempts = 20): Promise<Answer> {
  let answer = await send()
  for (let n = 1; n < attempts && answer.status === 503; n++) {
    if (counter) counter.retries++
    const after = Math.min(1, Number(answer.headers.get('retry-after') ?? 1))
    await new Promise((resolve) => setTimeout(resolve, after * 500 + Math.random() * 500))
    answer = await send()
  }
  return answer
}

/** Counts answers by status, e.g. `{ 201: 30, 409: 270 }`. */
export function countStatuses(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1
  return counts
}

/** Runs `count` calls at once (all started before any is awaited). */
export const all = <T>(count: number, call: (n: number) => Promise<T>) => Promise.all(Array.from({ length: count }, (_, n) => call(n)))

/**
 * Waits until no connection but this one is open to the database. Until a killed process's
 * connections are gone, a statement it sent (its COMMIT too) may still be running: read the
 * database after this, and what it committed is in, what it did not is rolled back.
 */
export const connectionsGone = (databaseUrl: string) =>
  eventually(
    async () =>
      (
        await queryDatabase<{ n: number }>(
          databaseUrl,
          'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
        )
      )[0]!.n === 0,
    30_000,
    20,
  )
