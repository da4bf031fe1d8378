import type { SQL } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import { PgDialect } from 'drizzle-orm/pg-core'
import pg from 'pg'
import { DRIZZLE_OPTIONS, type Db } from './database.js'

/**
 * The statement a transaction ends with, how its rows are read, and what a failure of it means
 * (an error to throw instead of the database's). It must decide by itself: it refuses by raising
 * an error, never by answering rows the caller would have to judge, because on PostgreSQL it
 * runs in the same round trip as the COMMIT.
 */
export type LastStatement<L> = {
  query: SQL
  read: (rows: Record<string, unknown>[]) => L
  explain?: (error: unknown) => unknown
}

/** Runs a statement inside a transaction now, like the last one of `transactionEndingWith`. */
export async function runStatement<L>(tx: Db, statement: LastStatement<L>): Promise<L> {
  let rows: Record<string, unknown>[]
  try {
    rows = (await tx.execute(statement.query)).rows
  } catch (error) {
    throw statement.explain ? statement.explain(error) : error
  }
  return statement.read(rows)
}

/**
 * `db.transaction(work)`, where the statement `work` names to end with is sent together with
 * the COMMIT: one simple-protocol message, `<last>; COMMIT`. The server runs the two back to back,
 * so whatever the last statement locked is released as soon as it is done, without waiting
 * for this process to read its answer and send the COMMIT (on a busy server that wait is the
 * event loop's, and everyone queued on the lock pays it). When the last statement fails the
 * server skips the COMMIT, and the transaction is rolled back.
 *
 * On the embedded database (one connection, one transaction at a time) there is nothing to win:
 * an ordinary transaction runs the last statement and then commits. Inside `work`, `tx` is a
 * handle on the transaction's connection; it must not open a nested transaction.
 */
export async function transactionEndingWith<T, L>(
  db: Db,
  work: (tx: Db) => Promise<{ result: T; last?: LastStatement<L> | undefined }>,
): Promise<{ result: T; last: L | undefined }> {
  const pool = poolOf(db)
  if (!pool) {
    return db.transaction(async (tx) => {
      const { result, last } = await work(tx)
      return { result, last: last && (await runStatement(tx, last)) }
    })
  }

  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('begin')
    const { result, last } = await work(handleOn(client))
    if (!last) {
      await client.query('commit')
      return { result, last: undefined }
    }
    let answers: pg.QueryResult[]
    try {
      answers = (await client.query(`${inlined(last.query)}; commit`)) as unknown as pg.QueryResult[]
    } catch (error) {
      throw last.explain ? last.explain(error) : error
    }
    return { result, last: last.read(answers[0]!.rows) }
  } catch (error) {
    await client.query('rollback').catch((rollbackFailed: Error) => {
      broken = rollbackFailed
    })
    throw error
  } finally {
    // A connection that could not even roll back is closed instead of going back to the pool.
    client.release(broken)
  }
}

const poolOf = (db: Db): pg.Pool | undefined => {
  const client = (db as { $client?: unknown }).$client
  return client instanceof pg.Pool ? client : undefined
}

/** One drizzle handle per pooled connection (the pool reuses them), for the statements of `work`. */
const handles = new WeakMap<pg.PoolClient, Db>()
const handleOn = (client: pg.PoolClient): Db => {
  let handle = handles.get(client)
  if (!handle) handles.set(client, (handle = drizzle(client, DRIZZLE_OPTIONS) as unknown as Db))
  return handle
}

const dialect = new PgDialect({ casing: DRIZZLE_OPTIONS.casing })

/**
 * The statement's text with its parameters written in as literals: a simple-protocol message
 * carries no parameters. Only the values drizzle passes for plain parameters are accepted
 * (strings, finite numbers, booleans, null, arrays of those); the SQL must cast them where the
 * type matters (`${ids}::uuid[]`), and must hold no `$n` other than its parameters.
 */
export function inlined(query: SQL): string {
  const { sql: text, params } = dialect.sqlToQuery(query)
  return text.replace(/\$(\d+)/g, (_, n: string) => literalOf(params[Number(n) - 1]))
}

function literalOf(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot inline ${value}`)
    return `'${value}'`
  }
  if (typeof value === 'string') return pg.escapeLiteral(value)
  if (Array.isArray(value)) return pg.escapeLiteral(`{${value.map(arrayElementOf).join(',')}}`)
  throw new TypeError(`cannot inline a ${typeof value}`)
}

function arrayElementOf(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`cannot inline ${value}`)
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw new TypeError(`cannot inline a ${typeof value}`)
  return `"${String(value).replace(/["\\]/g, '\\$&')}"`
}
