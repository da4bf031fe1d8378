import { is, type Query, SQL } from 'drizzle-orm'
import type { Db } from './database.js'

/**
 * A statement written as its final text (`$1`, `$2`, … placeholders) with its values: what the
 * query builder would make of an `sql` template, without making it. Building costs several
 * microseconds per value, so a hot statement of thirty values whose text never changes is kept
 * written out. The values go to the driver as they are (arrays, numbers, strings, null).
 */
export type FixedStatement = Query

/** A statement as the driver receives it. */
export type AnyStatement = SQL | FixedStatement

/**
 * Runs either kind of statement on this handle (a transaction's, or the database's). A fixed
 * statement with a `name` is prepared once per connection on PostgreSQL (the same name must
 * always mean the same text).
 */
export function executeStatement<R = Record<string, unknown>>(db: Db, statement: AnyStatement, name?: string): Promise<{ rows: R[] }> {
  if (is(statement, SQL)) return db.execute(statement).execute() as Promise<{ rows: R[] }>
  return db._.session.prepareQuery(statement, undefined, name, false).execute() as Promise<{ rows: R[] }>
}
