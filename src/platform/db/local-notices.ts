import { EventEmitter } from 'node:events'
import type { Db } from './database.js'
import { preparedOn } from './prepared.js'

/** What this process tells itself about a change, by channel, before the database's notice arrives. */
type Notices = EventEmitter<Record<string, [payload: unknown]>>

const NOTICES = Symbol('local notices')

const newNotices = (): Notices => {
  const notices: Notices = new EventEmitter()
  notices.setMaxListeners(0)
  return notices
}

/**
 * The notices this process gives itself through one database handle: a change announced on a
 * database channel reaches even this process only a few milliseconds after commit, and its own
 * caches must act on it before the change answers. Kept on the handle, never per process, so two
 * apps in one process (or a test's two replicas) hear each other only through the database.
 */
export const localNotices = (db: Db): Notices => preparedOn(db, NOTICES, newNotices)
