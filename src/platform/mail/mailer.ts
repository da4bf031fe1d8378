import nodemailer from 'nodemailer'
import type { Logger } from 'pino'

export type OutgoingEmail = { to: string; subject: string; text: string; html?: string | null }

export type Mailer = {
  send(email: OutgoingEmail): Promise<void>
  close(): void
}

/**
 * Delivers through `SMTP_URL`; without it, emails are written to the log so that a
 * developer on a laptop can still follow a link.
 */
export function createMailer(options: { smtpUrl: string | undefined; from: string; logger: Logger }): Mailer {
  const { smtpUrl, from, logger } = options
  if (!smtpUrl) {
    return {
      send: async (email) => {
        logger.info({ email: { to: email.to, subject: email.subject, text: email.text } }, 'email (SMTP_URL unset, not sent)')
      },
      close: () => undefined,
    }
  }
  const transport = nodemailer.createTransport(smtpUrl, {
    // nodemailer waits minutes by default; a dead server should fail fast and be retried.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  })
  return {
    send: async (email) => {
      await transport.sendMail({ from, to: email.to, subject: email.subject, text: email.text, html: email.html ?? undefined })
    },
    close: () => transport.close(),
  }
}
