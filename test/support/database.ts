import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { inject } from 'vitest'
import { openDatabase, type Database, type Db } from '../../src/platform/db/database.js'

let shared: Promise<Database> | undefined
let sharedUrl: string | undefined

/**
 * This worker's database: an in-memory PGlite, or with `TEST_DATABASE_URL` a database of
 * its own created on that server. Migrated once, shared by the worker's test files.
 */
export function testDatabase(): Promise<Database> {
  shared ??= open()
  return shared
}

export const usesPostgres = () => Boolean(process.env.TEST_DATABASE_URL)

/** The PostgreSQL URL of this worker's database (PostgreSQL runs only), for a second pool or process. */
export async function testDatabaseUrl(): Promise<string> {
  await testDatabase()
  if (!sharedUrl) throw new Error('testDatabaseUrl() needs TEST_DATABASE_URL')
  return sharedUrl
}

async function open(): Promise<Database> {
  const url = process.env.TEST_DATABASE_URL
  sharedUrl = url ? await createScratchDatabase(url) : undefined
  const database = sharedUrl ? await openDatabase({ url: sharedUrl, poolMax: 10 }) : await openDatabase({ dataDir: null })
  await database.migrate()
  return database
}

/** Creates a uniquely named, empty database on the server of `url`; answers its URL. */
export async function createScratchDatabase(url: string): Promise<string> {
  const name = `bo_test_${inject('runId')}_${process.pid}_${randomBytes(3).toString('hex')}`
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`create database "${name}"`)
  } finally {
    await client.end()
  }
  const scratch = new URL(url)
  scratch.pathname = `/${name}`
  return scratch.toString()
}

/** Tables of the application schema, for resetting a database and fingerprinting it. */
export async function listTables(db: Db): Promise<string[]> {
  const result = await db.execute<{ tablename: string }>(sql`select tablename from pg_tables where schemaname = 'public' order by tablename`)
  return result.rows.map((row) => row.tablename)
}

/** Empties every application table; reference data is restored by the app's start-up. */
export async function resetDatabase(database: Database): Promise<void> {
  const tables = await listTables(database.db)
  if (tables.length === 0) return
  await database.db.execute(sql.raw(`truncate ${tables.map((t) => `"${t}"`).join(', ')} restart identity cascade`))
}
