import type { Db } from './database.js'

/**
 * A statement built once per database handle and kept, for the hot paths: the query builder's
 * cost (several microseconds per column and value) is paid once, then each run only binds its
 * placeholders (`sql.placeholder`). On PostgreSQL a transaction's handle is its pooled
 * connection's, which the pool reuses, so a statement is built once per connection; the
 * embedded database's transactions are new handles (built per transaction, as without this).
 *
 * `key` names what `build` makes, and must be the same for the same statement only.
 */
export function preparedOn<P>(db: Db, key: symbol, build: (db: Db) => P): P {
  let kept = statements.get(db)
  if (!kept) {
    kept = new Map()
    statements.set(db, kept)
  }
  let statement = kept.get(key) as P | undefined
  if (statement === undefined) {
    statement = build(db)
    kept.set(key, statement)
  }
  return statement
}

const statements = new WeakMap<Db, Map<symbol, unknown>>()
