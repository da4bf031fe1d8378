import type { Logger } from 'pino'
import type { Db } from '../db/database.js'
import { jitteredDelayMs } from '../outbox/backoff.js'
import type { OutboxChannel } from '../outbox/worker.js'
import type { Mailer } from './mailer.js'
import { claimDueEmails, markEmailDelivered, markEmailFailed, purgeEmails, type OutboxEmail } from './outbox.repo.js'

export type EmailChannelOptions = {
  db: Db
  mailer: Mailer
  logger: Logger
  /** First retry delay; each further attempt doubles it (with jitter), up to `maxRetryMs`. */
  baseRetryMs?: number
  maxRetryMs?: number
  /** After this many failed attempts an email is marked `failed` (visible in /metrics). */
  maxAttempts?: number
  leaseSeconds?: number
}

/** The outbox's emails, sent over SMTP (or logged without `SMTP_URL`); their bodies are forgotten once sent. */
export function emailChannel(options: EmailChannelOptions): OutboxChannel<OutboxEmail> {
  const { db, mailer, logger } = options
  const baseRetryMs = options.baseRetryMs ?? 2000
  const maxRetryMs = options.maxRetryMs ?? 10 * 60_000
  const maxAttempts = options.maxAttempts ?? 25
  const leaseSeconds = options.leaseSeconds ?? 120
  return {
    kind: 'email',
    deferrable: true,
    batchSize: 20,
    concurrency: 1,
    claim: (limit) => claimDueEmails(db, limit, leaseSeconds),
    async send(email) {
      // Only an email that went over SMTP is `sent`; a logged one has said so in its own line.
      if ((await mailer.send(email)) === 'sent') logger.info({ emailId: email.id, kind: email.kind }, 'email sent')
      return { delivered: true, detail: undefined }
    },
    retryInMs: (email) => (email.attempts >= maxAttempts ? null : jitteredDelayMs(email.attempts, baseRetryMs, maxRetryMs)),
    settle: (email, outcome, retryInMs) =>
      outcome.delivered ? markEmailDelivered(db, email.id) : markEmailFailed(db, email.id, outcome.error.slice(0, 500), retryInMs),
    purge: (days, limit) => purgeEmails(db, days, limit),
    close: () => mailer.close(),
  }
}
