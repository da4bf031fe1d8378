import { type SQL, sql } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'

export type LeaseOptions = {
  limit: number
  leaseSeconds: number
  /** A further condition on the due rows of `table` (referred to by its name). */
  where?: SQL | undefined
}

/**
 * The one statement that leases due outbox rows to this worker: `status = 'pending'`, due, not
 * leased by another worker (or its lease ran out: it crashed), oldest due first; their lease is
 * taken and their attempt counted, and they are returned. One statement, so no transaction stays
 * open while the receiver is talked to; SKIP LOCKED lets every process claim disjoint rows at
 * once. Every outbox table has `id`, `status`, `attempts`, `next_attempt_at` and `locked_until`.
 */
export const leaseDue = (table: PgTable, { limit, leaseSeconds, where }: LeaseOptions) => sql`
  update ${table}
     set locked_until = now() + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1
   where id in (
     select id from ${table}
      where status = 'pending' and next_attempt_at <= now()
        and (locked_until is null or locked_until < now())
        ${where ? sql`and ${where}` : sql``}
      order by next_attempt_at
      limit ${limit}
      for update skip locked)`
