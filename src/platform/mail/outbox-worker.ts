import type { Logger } from 'pino'
import type { Db } from '../db/database.js'
import type { Mailer } from './mailer.js'
import { claimDueEmails, markEmailFailed, markEmailSent } from './outbox.repo.js'

export type OutboxWorkerOptions = {
  db: Db
  mailer: Mailer
  logger: Logger
  pollMs: number
  batchSize?: number
  /** First retry delay; each further attempt doubles it, up to `maxRetryMs`. */
  baseRetryMs?: number
  maxRetryMs?: number
  /** After this many failed attempts an email is marked `dead` (visible in /metrics). */
  maxAttempts?: number
  leaseSeconds?: number
}

export type OutboxWorker = {
  start(): void
  stop(): Promise<void>
  /** Delivers what is due now; answers how many emails were sent. */
  runOnce(): Promise<number>
}

export function retryDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1))
}

/**
 * Delivers queued emails with retries and exponential backoff. Safe to run in every
 * process at once: rows are leased with SKIP LOCKED, so each email goes to one worker.
 */
export function createOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const { db, mailer, logger, pollMs } = options
  const batchSize = options.batchSize ?? 20
  const baseRetryMs = options.baseRetryMs ?? 2000
  const maxRetryMs = options.maxRetryMs ?? 10 * 60_000
  const maxAttempts = options.maxAttempts ?? 25
  const leaseSeconds = options.leaseSeconds ?? 120
  let timer: NodeJS.Timeout | undefined
  let running: Promise<number> | undefined
  let stopped = true

  async function deliver(): Promise<number> {
    const due = await claimDueEmails(db, batchSize, leaseSeconds)
    let sent = 0
    for (const email of due) {
      try {
        await mailer.send(email)
        await markEmailSent(db, email.id)
        sent++
        logger.info({ emailId: email.id, kind: email.kind }, 'email sent')
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        const retryIn = email.attempts >= maxAttempts ? null : retryDelayMs(email.attempts, baseRetryMs, maxRetryMs)
        logger.warn({ emailId: email.id, kind: email.kind, attempts: email.attempts, retryIn, err: message }, 'email delivery failed')
        await markEmailFailed(db, email.id, message.slice(0, 500), retryIn)
      }
    }
    return sent
  }

  function runOnce(): Promise<number> {
    // One pass at a time per process; a caller joining a pass gets its result.
    running ??= deliver().finally(() => {
      running = undefined
    })
    return running
  }

  function schedule() {
    if (stopped) return
    timer = setTimeout(async () => {
      try {
        const sent = await runOnce()
        // A full batch means more may be waiting: go again at once.
        if (sent >= batchSize && !stopped) return void setImmediate(schedule)
      } catch (error) {
        logger.warn({ err: error }, 'outbox pass failed')
      }
      schedule()
    }, pollMs)
    timer.unref()
  }

  return {
    start() {
      if (!stopped) return
      stopped = false
      schedule()
    },
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      await running?.catch(() => undefined)
    },
    runOnce,
  }
}
