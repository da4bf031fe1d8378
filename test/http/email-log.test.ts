import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { enqueueEmail } from '../../src/platform/mail/outbox.repo.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { buildTestApp } from '../build-app.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { captureLogs } from '../support/log-capture.js'
import { SmtpSink } from '../support/smtp-sink.js'

/** The log lines that speak of one email, by its address. */
const linesAbout = (lines: Record<string, unknown>[], to: string, ids: string[]) =>
  lines.filter((line) => (line.email as { to?: string } | undefined)?.to === to || ids.includes(String(line.emailId)))

const idsOf = async (app: FastifyInstance, to: string) =>
  (await app.db.select({ id: outboxEmails.id }).from(outboxEmails).where(eq(outboxEmails.to, to))).map((row) => row.id)

let sink: SmtpSink

beforeAll(async () => {
  await resetDatabase(await testDatabase())
  sink = await SmtpSink.start()
})
afterAll(async () => {
  await sink.stop()
})

describe('the log of an email', () => {
  it('says once that it was not sent when there is no SMTP server, and never that it was sent', async () => {
    const logs = captureLogs('info')
    const app = await buildTestApp({ logger: logs.logger })
    try {
      await enqueueEmail(app.db, { kind: 'test.logged', to: 'logged@example.com', subject: 'Hello', text: 'Your link: https://shop.example/x' })
      expect(await app.outbox.runOnce()).toBe(1)
      const lines = linesAbout(logs.lines, 'logged@example.com', await idsOf(app, 'logged@example.com'))
      expect(lines.map((line) => line.msg)).toEqual(['email not sent (SMTP_URL unset): logged here instead'])
      expect(lines[0]).toMatchObject({ kind: 'test.logged', email: { subject: 'Hello', text: 'Your link: https://shop.example/x' } })
      expect(lines[0]!.emailId).toEqual(expect.any(String))
    } finally {
      await app.close()
    }
  })

  it('says it was sent when it went over SMTP', async () => {
    const logs = captureLogs('info')
    const app = await buildTestApp({ logger: logs.logger, env: { SMTP_URL: sink.url } })
    try {
      await enqueueEmail(app.db, { kind: 'test.sent', to: 'sent@example.com', subject: 'Hello', text: 'x' })
      expect(await app.outbox.runOnce()).toBe(1)
      expect(sink.to('sent@example.com')).toHaveLength(1)
      const lines = linesAbout(logs.lines, 'sent@example.com', await idsOf(app, 'sent@example.com'))
      expect(lines.map((line) => [line.msg, line.kind])).toEqual([['email sent', 'test.sent']])
    } finally {
      await app.close()
    }
  })
})
