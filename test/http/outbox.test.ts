import type { FastifyInstance } from 'fastify'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { enqueueEmail } from '../../src/platform/mail/outbox.repo.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { retryDelayMs } from '../../src/platform/outbox/backoff.js'
import { buildTestApp } from '../build-app.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { eventually, SmtpSink } from '../support/smtp-sink.js'

const METRICS_TOKEN = 'metrics-token-of-the-outbox-test'

let sink: SmtpSink
let app: FastifyInstance

beforeAll(async () => {
  await resetDatabase(await testDatabase())
  sink = await SmtpSink.start()
  app = await buildTestApp({ env: { SMTP_URL: sink.url, MAIL_FROM: 'tickets@boxoffice.test', METRICS_TOKEN } })
})
afterAll(async () => {
  await app.close()
  await sink.stop()
})

const rowsFor = (to: string) => app.db.select().from(outboxEmails).where(eq(outboxEmails.to, to))

describe('email outbox', () => {
  it('delivers a queued email through SMTP and forgets its body once sent', async () => {
    await enqueueEmail(app.db, { kind: 'test.hello', to: 'ana@example.com', subject: 'Hello', text: 'Your link: https://shop.example/x?token=abc' })
    expect(await app.outbox.runOnce()).toBe(1)
    const [mail] = sink.to('ana@example.com')
    expect(mail).toContain('Subject: Hello')
    expect(mail).toContain('https://shop.example/x?token=abc')
    expect(sink.received.at(-1)?.from).toBe('tickets@boxoffice.test')
    const [row] = await rowsFor('ana@example.com')
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, text: '', html: null })
    expect(await app.outbox.runOnce()).toBe(0)
  })

  it('sends nothing for an email whose transaction rolled back', async () => {
    await app.db
      .transaction(async (tx) => {
        await enqueueEmail(tx, { kind: 'test.rollback', to: 'ghost@example.com', subject: 'Never', text: 'x' })
        throw new Error('the change failed')
      })
      .catch(() => undefined)
    await app.outbox.runOnce()
    expect(await rowsFor('ghost@example.com')).toHaveLength(0)
    expect(sink.to('ghost@example.com')).toHaveLength(0)
  })

  it('keeps emails while the SMTP server is down and delivers each once when it is back', async () => {
    await sink.stop()
    for (const n of [1, 2, 3]) {
      await enqueueEmail(app.db, { kind: 'test.outage', to: `outage${n}@example.com`, subject: `Outage ${n}`, text: 'x' })
    }
    expect(await app.outbox.runOnce()).toBe(0)
    const failed = await rowsFor('outage1@example.com')
    expect(failed[0]).toMatchObject({ status: 'pending', attempts: 1 })
    expect(failed[0]?.lastError).toBeTruthy()
    expect(failed[0]!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now())

    await sink.listen()
    // Make the retries due now instead of waiting out the backoff.
    await app.db.update(outboxEmails).set({ nextAttemptAt: new Date(Date.now() - 1000) })
    expect(await app.outbox.runOnce()).toBe(3)
    for (const n of [1, 2, 3]) expect(sink.to(`outage${n}@example.com`)).toHaveLength(1)
    expect(await app.outbox.runOnce()).toBe(0)
  })

  it('delivers from the background worker with retries when started', async () => {
    const worker = await buildTestApp({ env: { SMTP_URL: sink.url, OUTBOX_POLL_MS: '20' } })
    worker.outbox.start()
    try {
      await enqueueEmail(worker.db, { kind: 'test.worker', to: 'bg@example.com', subject: 'Background', text: 'x' })
      await eventually(() => sink.to('bg@example.com').length === 1)
    } finally {
      await worker.close()
    }
  })

  it('never hands one email to two concurrent workers', async () => {
    for (let n = 0; n < 30; n++) {
      await enqueueEmail(app.db, { kind: 'test.race', to: `race${n}@example.com`, subject: 'Race', text: 'x' })
    }
    const other = await buildTestApp({ env: { SMTP_URL: sink.url } })
    try {
      let total = 0
      for (let round = 0; round < 3; round++) {
        const sent = await Promise.all([app.outbox.runOnce(), other.outbox.runOnce()])
        total += sent[0] + sent[1]
      }
      for (let n = 0; n < 30; n++) expect(sink.to(`race${n}@example.com`)).toHaveLength(1)
      expect(total).toBe(30)
    } finally {
      await other.close()
    }
  })

  it('counts the backlog in /metrics', async () => {
    await sink.stop()
    await enqueueEmail(app.db, { kind: 'test.backlog', to: 'backlog@example.com', subject: 'Backlog', text: 'x' })
    const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    expect(res.body).toMatch(/outbox_emails\{status="pending"\} 1/)
    await sink.listen()
  })
})

describe('retry backoff', () => {
  it('doubles from the base delay up to the cap', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1000, 5000))).toEqual([1000, 2000, 4000, 5000])
  })
})
