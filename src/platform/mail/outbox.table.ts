import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { OUTBOX_STATUSES } from '../outbox/lease.js'

/**
 * Emails waiting to be delivered. Rows are written in the same transaction as the change
 * that caused them, so a rolled-back change sends nothing and a committed one loses nothing.
 */
export const outboxEmails = pgTable(
  'outbox_emails',
  {
    id: uuid().primaryKey().defaultRandom(),
    kind: text().notNull(),
    to: text().notNull(),
    subject: text().notNull(),
    /** Cleared once sent: bodies can hold single-use links. */
    text: text().notNull(),
    html: text(),
    status: text({ enum: OUTBOX_STATUSES }).notNull().default('pending'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** A worker's lease on the row while it talks to the SMTP server. */
    lockedUntil: timestamp({ withTimezone: true }),
    lastError: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp({ withTimezone: true }),
  },
  (t) => [index('outbox_emails_due_idx').on(t.status, t.nextAttemptAt), index('outbox_emails_created_idx').on(t.createdAt)],
)
