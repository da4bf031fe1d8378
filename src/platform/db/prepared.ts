import type { Db } from './database.js'

/** Where a handle keeps what was built for it: on the handle itself, so it lives and dies with it. */
const KEPT = Symbol('built for this database handle')
type Keeping = { [KEPT]?: Map<symbol, unknown> }

/**
 * A statement built once per database handle and kept, for the hot paths: the query builder's
 * cost (several microseconds per column and value) is paid once, then each run only binds its
 * placeholders (`sql.placeholder`). On PostgreSQL a transaction's handle is its pooled
 * connection's, which the pool reuses, so a statement is built once per connection; the
 * embedded database's transactions are new handles (built per transaction, as without this).
 * A handle's own bookkeeping is kept the same way (`localNotices`, the seller changes waiting
 * for confirmations): nothing of one handle is another's, and nothing is the process's.
 *
 * `key` names what `build` makes, and must be the same for the same statement only.
 */
export function preparedOn<P>(db: Db, key: symbol, build: (db: Db) => P): P {
  const handle = db as unknown as Keeping
  let kept = handle[KEPT]
  if (!kept) {
    kept = new Map()
    handle[KEPT] = kept
  }
  let statement = kept.get(key) as P | undefined
  if (statement === undefined) {
    statement = build(db)
    kept.set(key, statement)
  }
  return statement
}
