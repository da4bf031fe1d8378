import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { outboxColumns } from '../outbox/lease.js'

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
    /** Leased while a worker talks to the SMTP server. */
    ...outboxColumns(),
    lastError: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp({ withTimezone: true }),
  },
  (t) => [index('outbox_emails_due_idx').on(t.status, t.nextAttemptAt), index('outbox_emails_created_idx').on(t.createdAt)],
)
