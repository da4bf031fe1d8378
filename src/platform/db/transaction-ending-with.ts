import { is, SQL } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import { PgDialect } from 'drizzle-orm/pg-core'
import pg from 'pg'
import { DRIZZLE_OPTIONS, type Db } from './database.js'
import { type AnyStatement, executeStatement } from './fixed-statement.js'

// The driver API this file relies on is public: pg's `pipeline` option (database.ts), a pool's
// `connect`/`release(error)`, drizzle's `$client`. One internal: `writtenTogether` corks the
// socket of pg's `client.connection.stream` so that statements issued together leave in one
// write; without it (another driver version) they leave in one write each, and nothing else
// changes.

/**
 * The statement a transaction ends with, how its rows are read, and what a failure of it means
 * (an error to throw instead of the database's). It must decide by itself: it refuses by raising
 * an error, never by answering rows the caller would have to judge, because on PostgreSQL the
 * COMMIT is sent with it, before its answer is read. `read` runs once it has committed there,
 * so it must not throw.
 */
export type LastStatement<L> = {
  query: AnyStatement
  read: (rows: Record<string, unknown>[]) => L
  explain?: (error: unknown) => unknown
}

/** Runs a statement inside a transaction now, like the last one of `transactionEndingWith`. */
export async function runStatement<L>(tx: Db, statement: LastStatement<L>): Promise<L> {
  let rows: Record<string, unknown>[]
  try {
    rows = (await executeStatement(tx, statement.query)).rows
  } catch (error) {
    throw explained(statement, error)
  }
  return statement.read(rows)
}

const explained = (statement: LastStatement<unknown>, error: unknown) => (statement.explain ? statement.explain(error) : error)

/** A statement to run, already built: a prepared statement, a repository's query, `sqlStatement`. */
export type Executable<R> = { execute: () => Promise<R> }

/** An SQL statement run on this handle, as an `Executable`. */
export const sqlStatement = (tx: Db, query: AnyStatement): Executable<unknown> => ({ execute: () => executeStatement(tx, query) })

/** How a transaction's work ends (`transactionEndingWith`). */
export type Ending<T, L> = {
  /**
   * The work's answer; a promise when it is made of the answers of statements still on their
   * way. It is settled before the end of the transaction is sent: a rejection, whatever its
   * reason, rolls the transaction back.
   */
  result: T | Promise<T>
  /** The statement sent with the COMMIT. */
  last?: LastStatement<L> | undefined
  /** Statements whose answers nothing reads, sent before the last one. */
  alongside?: readonly Executable<unknown>[] | undefined
  /** Statements sent after the last one, before the COMMIT: they see what it wrote; their answers are returned (`after`). */
  after?: readonly Executable<unknown>[] | undefined
}

/**
 * `db.transaction(work)`, cut into as few round trips as the work allows. On PostgreSQL the
 * pool's connections pipeline (database.ts): BEGIN goes out with the work's first statements,
 * statements issued together (`inOrder`) travel together, and once the work and its `result`
 * have settled, the `alongside` statements (whose answers nothing reads), the statement the
 * work names to end with and the COMMIT leave in one write and are answered in one round trip.
 * The server runs them in order; whatever the last statement locked is released as soon as it
 * is done, without waiting for this process to read its answer (on a busy server that wait is
 * the event loop's, and everyone queued on the lock pays it).
 *
 * Nothing this process decides comes after the COMMIT is sent: the work and its `result` have
 * settled by then, and a failure of either rolls back. What is sent with the COMMIT decides by
 * itself: when a statement fails, the server runs those behind it in an aborted transaction and
 * answers the COMMIT with ROLLBACK; the first failure is thrown. A COMMIT answered ROLLBACK
 * without a failure seen (a failed statement whose error the work swallowed) throws too, and a
 * COMMIT without an answer (a lost connection) throws with the connection closed: the caller
 * never sees success for a transaction that did not commit, nor an error for one that did.
 *
 * On the embedded database (one connection, one transaction at a time) there is nothing to win:
 * an ordinary transaction runs the statements one by one and then commits. Inside `work`, `tx`
 * is a handle on the transaction's connection; it must not open a nested transaction.
 */
export async function transactionEndingWith<T, L>(
  db: Db,
  work: (tx: Db) => Ending<T, L> | Promise<Ending<T, L>>,
): Promise<{ result: T; last: L | undefined; after: unknown[] }> {
  const pool = poolOf(db)
  if (!pool) {
    return db.transaction(async (tx) => {
      const { result, last, alongside = [], after = [] } = await work(tx)
      const answer = await result
      for (const statement of alongside) await statement.execute()
      const lastAnswer = last && (await runStatement(tx, last))
      const afterAnswers: unknown[] = []
      for (const statement of after) afterAnswers.push(await statement.execute())
      return { result: answer, last: lastAnswer, after: afterAnswers }
    })
  }

  const client = await pool.connect()
  // A connection whose state is unknown (a statement or the COMMIT without an answer) is closed, not reused.
  let broken: Error | undefined
  // Once the COMMIT has been answered the transaction is over, committed or rolled back.
  let ended = false
  try {
    // BEGIN leaves with the statements the work issues before it first waits.
    const [begun, working] = writtenTogether(client, () => {
      const begun = client.query('begin')
      begun.catch(() => undefined) // awaited below; the work's first statement fails the same way
      // Called now, so that its first statements are written with BEGIN; a throw rejects `working`.
      return [begun, (async () => work(handleOn(client)))()] as const
    })
    const { result, last, alongside = [], after = [] } = await working
    const answer = await result
    await begun
    const { sent, committing } = writtenTogether(client, () => sendEnd(client, alongside, last, after))
    const [settled, committed] = await Promise.all([
      Promise.allSettled(sent),
      committing.then(
        (value) => ({ value }),
        (reason: unknown) => ({ reason }),
      ),
    ])
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')
    const lastAt = last ? alongside.length : -1
    const failed = failure && (last && failure === settled[lastAt] ? explained(last, failure.reason) : failure.reason)
    if ('reason' in committed) {
      broken = asError(committed.reason)
      throw failure ? failed : committed.reason
    }
    ended = true
    if (failure) throw failed
    if (committed.value.command !== 'COMMIT') throw new Error(`The transaction ended with ${committed.value.command}, not COMMIT`)
    const lastRows = last && (settled[lastAt] as PromiseFulfilledResult<pg.QueryResult>).value.rows
    const afterAnswers = settled.slice(settled.length - after.length).map((s) => (s as PromiseFulfilledResult<unknown>).value)
    return { result: answer, last: last?.read(lastRows!), after: afterAnswers }
  } catch (error) {
    if (!ended && !broken) {
      await client.query('rollback').catch((rollbackFailed: Error) => {
        broken = rollbackFailed
      })
    }
    throw error
  } finally {
    client.release(broken)
  }
}

const asError = (reason: unknown) => (reason instanceof Error ? reason : new Error(String(reason)))

/**
 * Sends the end of a transaction, without waiting: the `alongside` statements, the last
 * statement, the `after` statements and the COMMIT. `sent` holds their answers in order; none of
 * them is ever an unhandled rejection.
 */
function sendEnd<L>(
  client: pg.PoolClient,
  alongside: readonly Executable<unknown>[],
  last: LastStatement<L> | undefined,
  after: readonly Executable<unknown>[],
) {
  const sent: Promise<unknown>[] = alongside.map((statement) => statement.execute())
  if (last) {
    const { sql: text, params } = is(last.query, SQL) ? dialect.sqlToQuery(last.query) : last.query
    // As a config object, so that a preparing connection names it like any other statement.
    sent.push(client.query({ text, values: params }))
  }
  for (const statement of after) sent.push(statement.execute())
  for (const sending of sent) sending.catch(() => undefined)
  return { sent, committing: client.query('commit') }
}

/**
 * Runs the statements one after the other, in this order, inside a transaction: on a
 * pipelining connection (`transactionEndingWith` on PostgreSQL) they are all sent at once and
 * answered in one round trip; otherwise each waits for the one before. Use it for statements
 * that need nothing from each other's answers. The first failure is thrown; the statements after
 * it fail too (the transaction is aborted).
 */
export async function inOrder<T extends unknown[]>(tx: Db, ...statements: { [K in keyof T]: Executable<T[K]> }): Promise<T> {
  const list = statements as Executable<unknown>[]
  const client = pipelining(tx)
  if (client) return (await Promise.all(writtenTogether(client, () => list.map((statement) => statement.execute())))) as T
  const answers: unknown[] = []
  for (const statement of list) answers.push(await statement.execute())
  return answers as T
}

/** Whether statements issued side by side on this transaction's handle travel together (PostgreSQL) or wait for each other (the embedded database). */
export const pipelines = (tx: Db): boolean => pipelining(tx) !== undefined

const poolOf = (db: Db): pg.Pool | undefined => {
  const client = (db as { $client?: unknown }).$client
  return client instanceof pg.Pool ? client : undefined
}

const pipelining = (tx: Db) => {
  const client = (tx as { $client?: unknown }).$client
  return client instanceof pg.Client && client.pipeline ? client : undefined
}

/**
 * Runs `send`, which issues statements on this pipelining connection without waiting, with the
 * socket corked: the statements leave in one write instead of one each. On loopback and in small
 * VMs a write costs tens of microseconds of this process's CPU, paid per statement otherwise.
 */
function writtenTogether<T>(client: pg.ClientBase, send: () => T): T {
  const stream = (client as unknown as { connection?: { stream?: { cork?: () => void; uncork?: () => void } } }).connection?.stream
  if (!stream?.cork || !stream.uncork) return send()
  stream.cork()
  try {
    return send()
  } finally {
    stream.uncork()
  }
}

/** One drizzle handle per pooled connection (the pool reuses them), for the statements of `work`: kept on the connection. */
const HANDLE = Symbol('drizzle handle of this connection')
const handleOn = (client: pg.PoolClient): Db => {
  const connection = client as pg.PoolClient & { [HANDLE]?: Db }
  let handle = connection[HANDLE]
  if (!handle) {
    handle = drizzle(client, DRIZZLE_OPTIONS) as unknown as Db
    connection[HANDLE] = handle
  }
  return handle
}

const dialect = new PgDialect({ casing: DRIZZLE_OPTIONS.casing })
