import { EventEmitter } from 'node:events'
import type { Db } from './database.js'

/** What this process tells itself about a change, by channel, before the database's notice arrives. */
type Notices = EventEmitter<Record<string, [payload: unknown]>>

const byHandle = new WeakMap<Db, Notices>()

/**
 * The notices this process gives itself through one database handle: a change announced on a
 * database channel reaches even this process only a few milliseconds after commit, and its own
 * caches must act on it before the change answers. Kept per handle, never per process, so two
 * apps in one process (or a test's two replicas) hear each other only through the database.
 */
export function localNotices(db: Db): Notices {
  let notices = byHandle.get(db)
  if (!notices) {
    notices = new EventEmitter()
    notices.setMaxListeners(0)
    byHandle.set(db, notices)
  }
  return notices
}
