import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../db/database.js'
import { countUndone, leaseDue } from '../outbox/lease.js'
import { outboxEmails } from './outbox.table.js'

export type OutboxEmail = typeof outboxEmails.$inferSelect

export type EmailMessage = {
  /** What the email is for, e.g. `stf.verify_email`: for logs and metrics. */
  kind: string
  to: string
  subject: string
  text: string
  html?: string
}

/** The statement that queues an email. Pass the transaction of the change that causes it. */
export const emailInsert = (db: Db, message: EmailMessage) =>
  db.insert(outboxEmails).values({
    kind: message.kind,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html ?? null,
  })

/** Queues an email. Pass the transaction of the change that causes it. */
export async function enqueueEmail(db: Db, message: EmailMessage): Promise<void> {
  await emailInsert(db, message)
}

/** Queues many emails in one statement. Pass the transaction of the change that causes them. */
export async function enqueueEmails(db: Db, messages: readonly EmailMessage[]): Promise<void> {
  if (messages.length === 0) return
  await db.insert(outboxEmails).values(messages.map((m) => ({ kind: m.kind, to: m.to, subject: m.subject, text: m.text, html: m.html ?? null })))
}

/** Leases up to `limit` due emails to this worker for `leaseSeconds` (`leaseDue`). */
export async function claimDueEmails(db: Db, limit: number, leaseSeconds: number): Promise<OutboxEmail[]> {
  const result = await db.execute<Record<string, unknown>>(sql`
    ${leaseDue(outboxEmails, { limit, leaseSeconds })}
    returning id, kind, "to", subject, text, html, attempts`)
  return result.rows as OutboxEmail[]
}

/** Marks an email delivered (sent) and forgets its body, which may hold a single-use link. */
export async function markEmailDelivered(db: Db, id: string): Promise<void> {
  await db
    .update(outboxEmails)
    .set({ status: 'delivered', sentAt: sql`now()`, lockedUntil: null, text: '', html: null, lastError: null })
    .where(eq(outboxEmails.id, id))
}

/** Records a failed attempt: tried again in `retryInMs`, or given up on (`failed`) when null. */
export async function markEmailFailed(db: Db, id: string, error: string, retryInMs: number | null): Promise<void> {
  await db
    .update(outboxEmails)
    .set(
      retryInMs === null
        ? { status: 'failed', lockedUntil: null, lastError: error }
        : {
            lockedUntil: null,
            lastError: error,
            nextAttemptAt: sql`now() + make_interval(secs => ${retryInMs / 1000})`,
          },
    )
    .where(and(eq(outboxEmails.id, id), eq(outboxEmails.status, 'pending')))
}

/** Emails pending (the backlog) and failed (given up on), for /metrics. */
export const countEmailsByStatus = (db: Db) => countUndone(db, outboxEmails)

/** Deletes up to `limit` emails sent or given up on more than `days` days ago; answers how many. */
export async function purgeEmails(db: Db, days: number, limit: number): Promise<number> {
  const result = await db.execute(sql`
    delete from ${outboxEmails}
     where id in (
       select id from ${outboxEmails}
        where status <> 'pending' and created_at < now() - make_interval(days => ${days})
        limit ${limit}
        for update skip locked)
    returning id`)
  return result.rows.length
}
