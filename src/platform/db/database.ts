import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import pg from 'pg'
import { applyFunctionFiles, type FunctionFilesApplied } from './function-files.js'
import { preparingClient, UnpreparedClient } from './preparing-client.js'

/** Both drivers answer raw queries with `{ rows }`. */
type RowsOf<T> = { rows: (T extends Record<string, unknown> ? T : Record<string, unknown>)[] }
export interface RowsResultHKT extends PgQueryResultHKT {
  readonly type: RowsOf<this['row']>
}

/** A database handle or a transaction: repositories accept either. */
export type Db = PgDatabase<RowsResultHKT>

export type PoolStats = { total: number; idle: number; waiting: number }

export type Subscriber = {
  /** A notification on the channel, with its payload. */
  message(payload: string): void
  /** Notifications may have been missed (the listening connection dropped): forget derived state. */
  reset(): void
}

export type Database = {
  db: Db
  driver: 'pg' | 'pglite'
  /** LISTEN on a channel; answers a function that stops listening. */
  subscribe(channel: string, subscriber: Subscriber): Promise<() => Promise<void>>
  /** False while the listening connection is down: caches must not be trusted then. */
  listening(): boolean
  /**
   * Sends a notification on the channel, through the listening connection while it is up (so it
   * never waits for the pool), else through the pool.
   */
  notify(channel: string, payload: string): Promise<void>
  /** Who this process listens as (its listening connection's backend pid); undefined while down. */
  listenerId(): string | undefined
  /** One round trip; throws when the database cannot be reached. */
  ping(): Promise<void>
  /** Applies pending migrations, then the function files; answers what became of the function files. */
  migrate(): Promise<FunctionFilesApplied>
  poolStats(): PoolStats
  close(): Promise<void>
}

export type OpenDatabaseOptions = {
  /** A postgres:// URL; without it the embedded PGlite is used. */
  url?: string | undefined
  /** Where PGlite keeps its files; `null` keeps it in memory (tests). */
  dataDir?: string | null
  poolMax?: number
  connectTimeoutMs?: number
  statementTimeoutMs?: number
  /** Named prepared statements (default true); false behind a transaction-mode pooler. */
  preparedStatements?: boolean
  /** A connection of the pool or the listener failed, or a LISTEN was refused (the process recovers by itself). */
  onPoolError?: (error: Error) => void
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../migrations', import.meta.url))

// Any constant works: it only has to be the same for every process of this application.
const MIGRATION_LOCK_ID = 7_344_021

/** How every drizzle handle of this application is built: column names in snake_case. */
export const DRIZZLE_OPTIONS = { casing: 'snake_case' as const }
const { casing } = DRIZZLE_OPTIONS

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options) : openPglite(options.dataDir ?? null)
}

function openPostgres(url: string, options: OpenDatabaseOptions): Database {
  const statementTimeout = options.statementTimeoutMs ?? 5000
  const poolConfig: pg.PoolConfig = {
    connectionString: url,
    max: options.poolMax ?? 10,
    // A database that does not answer yields a fast 503 instead of a hanging request.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 2000,
    statement_timeout: statementTimeout,
    query_timeout: statementTimeout + 1000,
    lock_timeout: Math.min(3000, statementTimeout),
    idle_in_transaction_session_timeout: statementTimeout * 2,
    application_name: 'boxoffice',
    Client: options.preparedStatements === false ? UnpreparedClient : preparingClient(),
    // Statements issued without waiting for the previous answer go out at once and come back
    // together: one round trip (and one trip through the event loop) for several statements of a
    // transaction (transaction-ending-with.ts). Awaited one by one, nothing changes.
    pipeline: true,
  }
  const pool = new pg.Pool(poolConfig)
  // An idle client whose server went away emits here; unhandled, it would end the process.
  pool.on('error', (error) => options.onPoolError?.(error))
  // The pool listens only to idle clients. One checked out for a transaction whose server goes
  // away between two statements emits 'error' with nobody listening, which ended the process:
  // listen to every client. Its next statement fails (503) and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', (error) => options.onPoolError?.(error)))
  const db = drizzlePg(pool, DRIZZLE_OPTIONS) as unknown as Db
  const listener = new PgListener(url, poolConfig.connectionTimeoutMillis ?? 2000, options.onPoolError)
  return {
    db,
    driver: 'pg',
    subscribe: (channel, subscriber) => listener.subscribe(channel, subscriber),
    listening: () => listener.live,
    notify: async (channel, payload) => {
      if (await listener.notify(channel, payload)) return
      await pool.query('select pg_notify($1, $2)', [channel, payload])
    },
    listenerId: () => listener.backendPid,
    ping: async () => {
      await pool.query('select 1')
    },
    migrate: async () => {
      // Several replicas may start at once: one migrates while the others wait.
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: poolConfig.connectionTimeoutMillis })
      await client.connect()
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID])
        await migratePg(drizzlePg(client, { casing }), { migrationsFolder: MIGRATIONS_FOLDER })
        return await applyFunctionFiles(drizzlePg(client, { casing }) as unknown as Db)
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined)
        await client.end()
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      await listener.close()
      await pool.end()
    },
  }
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/
/** How listening connections name themselves, so that a writer can tell who listens. */
export const LISTENER_NAME = 'boxoffice listener'

/**
 * One dedicated connection for LISTEN, outside the pool. When it drops, subscribers are told
 * to reset (they may have missed notifications) and it reconnects with backoff.
 */
class PgListener {
  private client: pg.Client | undefined
  private connecting: Promise<void> | undefined
  private readonly subscribers = new Map<string, Set<Subscriber>>()
  private closed = false
  private retryMs = 250
  live = false
  /** The listening connection's backend pid while it is up. */
  backendPid: string | undefined

  constructor(
    private readonly url: string,
    private readonly connectTimeoutMs: number,
    private readonly onError?: (error: Error) => void,
  ) {}

  async subscribe(channel: string, subscriber: Subscriber): Promise<() => Promise<void>> {
    if (!CHANNEL.test(channel)) throw new Error(`invalid channel name ${channel}`)
    let set = this.subscribers.get(channel)
    if (!set) {
      set = new Set()
      this.subscribers.set(channel, set)
    }
    set.add(subscriber)
    // A connection on its way up listens to every channel subscribed before it is live (`open`);
    // one already live is told here. A database that is down at start must not stop the app: it
    // is retried in the background.
    const client = this.client
    if (this.live && client) await this.listen(client, channel).catch(() => this.dropped(client))
    await this.connect().catch(() => undefined)
    return async () => {
      set.delete(subscriber)
    }
  }

  /** LISTEN on this connection; a failure is reported with its channel, and thrown. */
  private async listen(client: pg.Client, channel: string) {
    try {
      await client.query(`listen ${channel}`)
    } catch (error) {
      const failed = new Error(`could not listen on channel ${channel}: ${(error as Error).message}`, { cause: error })
      this.onError?.(failed)
      throw failed
    }
  }

  private connect(): Promise<void> {
    if (this.closed || this.live) return Promise.resolve()
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined
    })
    return this.connecting
  }

  private async open() {
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: this.connectTimeoutMs,
      keepAlive: true,
      application_name: LISTENER_NAME,
    })
    client.on('notification', (n) => {
      for (const s of this.subscribers.get(n.channel) ?? []) s.message(n.payload ?? '')
    })
    client.on('error', (error) => {
      this.onError?.(error)
      this.dropped(client)
    })
    client.on('end', () => this.dropped(client))
    let pid: string
    try {
      await client.connect()
      pid = String((await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid)
      // Last, and with nothing awaited between its end and `live`: a channel subscribed while this
      // loop runs is reached by it (a Map's iteration visits keys added meanwhile), and one
      // subscribed after it finds the connection live.
      for (const channel of this.subscribers.keys()) await this.listen(client, channel)
    } catch (error) {
      client.end().catch(() => undefined)
      this.scheduleReconnect()
      throw error
    }
    if (this.closed) {
      await client.end()
      return
    }
    this.client = client
    this.backendPid = pid
    this.live = true
    this.retryMs = 250
  }

  /** Sends a notification through this connection; false when it is down. */
  async notify(channel: string, payload: string): Promise<boolean> {
    const client = this.client
    if (!this.live || !client) return false
    await client.query('select pg_notify($1, $2)', [channel, payload])
    return true
  }

  private dropped(client: pg.Client) {
    if (this.client !== client) return
    this.client = undefined
    this.live = false
    this.backendPid = undefined
    for (const set of this.subscribers.values()) for (const s of set) s.reset()
    client.end().catch(() => undefined)
    this.scheduleReconnect()
  }

  private scheduleReconnect() {
    if (this.closed) return
    const delay = this.retryMs
    this.retryMs = Math.min(this.retryMs * 2, 5000)
    setTimeout(() => void this.connect().catch(() => undefined), delay).unref()
  }

  async close() {
    this.closed = true
    this.live = false
    this.backendPid = undefined
    const client = this.client
    this.client = undefined
    await client?.end().catch(() => undefined)
  }
}

/**
 * PGlite's own default (128MB) is touched as the database opens: 117 MB more of resident memory
 * for a process that serves one small database (measured: an existing database opened at 286 MB
 * RSS, at 169 MB with 32MB). 16MB holds the whole of a trial's database (the demo's is 11 MB
 * with its catalogues) in 18 MB less than 32MB (docs/performance.md, Memory); a larger one's
 * pages are read from the OS page cache, as a server's are.
 */
const PGLITE_SHARED_BUFFERS = '16MB'

async function openPglite(dataDir: string | null): Promise<Database> {
  let location: string | undefined
  if (dataDir !== null) {
    location = path.resolve(dataDir, 'pglite')
    await mkdir(location, { recursive: true })
    if (!existsSync(path.join(location, 'PG_VERSION'))) await createPgliteDatabase(location)
  }
  // Loaded here: a server on PostgreSQL never needs them.
  const [{ PGlite }, { drizzle: drizzlePglite }, { migrate: migratePglite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
  ])
  const client = await PGlite.create(location, { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`] })
  const db = drizzlePglite(client, DRIZZLE_OPTIONS) as unknown as Db
  return {
    db,
    driver: 'pglite',
    subscribe: async (channel, subscriber) => {
      const unlisten = await client.listen(channel, (payload) => subscriber.message(payload))
      return unlisten
    },
    // One process, one connection: a notification cannot be missed.
    listening: () => true,
    notify: async (channel, payload) => {
      await client.query('select pg_notify($1, $2)', [channel, payload])
    },
    // Nobody else can listen on an embedded database: there is no one to tell who is listening.
    listenerId: () => undefined,
    ping: async () => {
      await client.query('select 1')
    },
    migrate: async () => {
      await migratePglite(drizzlePglite(client, { casing }), { migrationsFolder: MIGRATIONS_FOLDER })
      return applyFunctionFiles(drizzlePglite(client, { casing }) as unknown as Db)
    },
    // One connection, shared: nothing to pool.
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    close: () => client.close(),
  }
}

/**
 * Creates the embedded database's files in a process of its own, which then exits. PGlite creates
 * a database with a second PostgreSQL and an initdb, each a WebAssembly instance with memory of its
 * own, that stay in the process as garbage until a full collection, which a quiet server may not
 * run for a long time: about 500 MB more of resident memory after a first start than after any
 * later one (docs/performance.md, Memory). Here they go with the process that made them, for
 * 0.7 s more of CPU on the first start only.
 */
async function createPgliteDatabase(location: string): Promise<void> {
  const script = `const { PGlite } = await import(${JSON.stringify(import.meta.resolve('@electric-sql/pglite'))})
await (await PGlite.create(process.argv[1])).close()`
  const child = spawn(process.execPath, ['--input-type=module', '--eval', script, location], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', resolve)
  })
  if (code !== 0) throw new Error(`could not create the embedded database in ${location} (exit ${code}): ${stderr.trim()}`)
}

/**
 * The listening connections of every process on this database right now (their `listenerId`),
 * read through `db`. None on the embedded database, where one process is all there is.
 */
export async function listenersOf(db: Db): Promise<string[]> {
  const result = await db.execute<{ pid: string }>(
    sql`select pid::text as pid from pg_stat_activity where datname = current_database() and application_name = ${LISTENER_NAME}`,
  )
  return result.rows.map((row) => row.pid)
}
