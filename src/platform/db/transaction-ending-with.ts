import { is, SQL } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import { PgDialect } from 'drizzle-orm/pg-core'
import pg from 'pg'
import { DRIZZLE_OPTIONS, type Db } from './database.js'
import { type AnyStatement, executeStatement } from './fixed-statement.js'

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
  /** The work's answer; a promise when it is made of the answers of statements still on their way. */
  result: T | Promise<T>
  /** The statement sent with the COMMIT. */
  last?: LastStatement<L> | undefined
  /** Statements whose answers nothing reads, sent before the last one. */
  alongside?: readonly Executable<unknown>[] | undefined
}

/**
 * `db.transaction(work)`, cut into as few round trips as the work allows. On PostgreSQL the
 * pool's connections pipeline (database.ts): BEGIN goes out with the work's first statements,
 * statements issued together (`inOrder`) travel together, and the statement `work` names to
 * end with is sent together with the COMMIT, after the `alongside` statements it names (whose
 * answers nothing reads; one that fails rolls everything back and is thrown). A `work` that
 * answers at once (not a promise), its `result` being the promise of the statements it issued,
 * waits for nothing: the whole transaction leaves in one write and is answered in one round
 * trip. The server runs the statements in order; whatever the last statement locked is released
 * as soon as it is done, without waiting for this process to read its answer (on a busy server
 * that wait is the event loop's, and everyone queued on the lock pays it). When a statement
 * fails, the server runs those behind it in an aborted transaction (they fail too) and ends it
 * with ROLLBACK whatever is asked, so the COMMIT sent with a last statement that refuses rolls
 * everything back; the first failure is thrown.
 *
 * On the embedded database (one connection, one transaction at a time) there is nothing to win:
 * an ordinary transaction runs the statements one by one and then commits. Inside `work`, `tx`
 * is a handle on the transaction's connection; it must not open a nested transaction.
 */
export async function transactionEndingWith<T, L>(db: Db, work: (tx: Db) => Ending<T, L> | Promise<Ending<T, L>>): Promise<{ result: T; last: L | undefined }> {
  const pool = poolOf(db)
  if (!pool) {
    return db.transaction(async (tx) => {
      const { result, last, alongside = [] } = await work(tx)
      const answer = await result
      for (const statement of alongside) await statement.execute()
      return { result: answer, last: last && (await runStatement(tx, last)) }
    })
  }

  const client = await pool.connect()
  let broken: Error | undefined
  // Once the COMMIT has been answered the transaction is over, committed or rolled back.
  let ended = false
  try {
    // BEGIN leaves with the statements the work issues before it first waits, and with the end
    // of the transaction when the work waits for nothing.
    const [begun, sending] = writtenTogether(client, () => {
      const begun = client.query('begin')
      begun.catch(() => undefined) // awaited below; the work's first statement fails the same way
      const working = work(handleOn(client))
      const end = (ending: Ending<T, L>) => writtenTogether(client, () => sendEnd(client, ending))
      return [begun, working instanceof Promise ? working.then(end) : end(working)] as const
    })
    const { before, answering, committing } = await sending
    await begun
    // The first statement that failed, in the order they were sent.
    const failedBefore = async () => {
      const settled = await Promise.allSettled(before)
      return settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')?.reason as unknown
    }
    const result = (await before[0]!.catch(() => undefined)) as T
    if (!answering) {
      const [failure] = [await failedBefore(), await committing]
      if (failure) {
        // Its COMMIT rolled back: the transaction is over.
        ended = true
        throw failure
      }
      return { result, last: undefined }
    }
    const [answer, committed] = await Promise.allSettled([answering.sent, committing])
    const failure = await failedBefore()
    if (failure && committed.status === 'fulfilled') {
      ended = true
      throw failure
    }
    if (committed.status === 'rejected') {
      // The connection failed, or its state is unknown: it is closed, not reused.
      broken = committed.reason instanceof Error ? committed.reason : new Error(String(committed.reason))
      throw answer.status === 'rejected' ? explained(answering.last, answer.reason) : committed.reason
    }
    ended = true
    if (answer.status === 'rejected') throw explained(answering.last, answer.reason)
    return { result, last: answering.last.read(answer.value.rows) }
  } catch (error) {
    if (!ended && !broken) {
      await client.query('rollback').catch((rollbackFailed: Error) => {
        broken = rollbackFailed
      })
    }
    throw error
  } finally {
    // A connection that could not even roll back is closed instead of going back to the pool.
    client.release(broken)
  }
}

/**
 * Sends the end of a transaction, without waiting: the `alongside` statements, the last
 * statement and the COMMIT. `before` holds the work's result first, then the alongside answers;
 * none of them is ever an unhandled rejection (they are read, maybe only after later answers).
 */
function sendEnd<T, L>(client: pg.PoolClient, { result, last, alongside = [] }: Ending<T, L>) {
  const before = [Promise.resolve(result), ...alongside.map((statement) => statement.execute())]
  for (const sending of before) sending.catch(() => undefined)
  let answering: { last: LastStatement<L>; sent: Promise<pg.QueryResult> } | undefined
  if (last) {
    const { sql: text, params } = is(last.query, SQL) ? dialect.sqlToQuery(last.query) : last.query
    // As a config object, so that a preparing connection names it like any other statement.
    answering = { last, sent: client.query({ text, values: params }) }
    answering.sent.catch(() => undefined)
  }
  // Both are read below, unless an earlier failure (a connection lost before BEGIN was answered)
  // ends the transaction first: then they fail too, and must not be unhandled rejections.
  const committing = client.query('commit')
  committing.catch(() => undefined)
  return { before, answering, committing }
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
