import { type SQL, sql } from 'drizzle-orm'
import { integer, type PgTable, text, timestamp } from 'drizzle-orm/pg-core'
import type { Db } from '../db/database.js'

/**
 * The status of every outbox row, emails and webhook deliveries alike: waiting to go (`pending`),
 * gone (`delivered`), given up on (`failed`).
 */
export const OUTBOX_STATUSES = ['pending', 'delivered', 'failed'] as const

/**
 * The columns every outbox table has for `leaseDue`: its status, the attempts made, when the next
 * is due, and a worker's lease on the row while it delivers it (null: not leased).
 */
export const outboxColumns = () => ({
  status: text({ enum: OUTBOX_STATUSES }).notNull().default('pending'),
  attempts: integer().notNull().default(0),
  nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  lockedUntil: timestamp({ withTimezone: true }),
})

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

/**
 * An outbox table's rows by status, leaving out the `delivered` ones (which only pile up): the
 * backlog (`pending`) and what was given up on (`failed`), each counted even when 0, for /metrics.
 */
export async function countUndone(db: Db, table: PgTable): Promise<Record<string, number>> {
  const result = await db.execute<{ status: string; n: number }>(
    sql`select status, count(*)::int as n from ${table} where status <> 'delivered' group by status`,
  )
  const counts: Record<string, number> = { pending: 0, failed: 0 }
  for (const row of result.rows) counts[row.status] = Number(row.n)
  return counts
}
