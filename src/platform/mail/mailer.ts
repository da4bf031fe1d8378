import type { Transporter } from 'nodemailer'
import type { Logger } from 'pino'

export type OutgoingEmail = {
  to: string
  subject: string
  text: string
  html?: string | null
  /** The outbox's id and kind of the email, named in the log line when it is only logged. */
  id?: string
  kind?: string
}

/** How an email left: over SMTP, or only into the log (no `SMTP_URL`). */
export type EmailDelivery = 'sent' | 'logged'

export type Mailer = {
  send(email: OutgoingEmail): Promise<EmailDelivery>
  close(): void
}

/**
 * Delivers through `SMTP_URL`; without it, emails are written to the log so that a
 * developer on a laptop can still follow a link. Either way one line says what happened to
 * an email: this one when it is logged, the outbox's `email sent` when it went over SMTP.
 */
export function createMailer(options: { smtpUrl: string | undefined; from: string; logger: Logger }): Mailer {
  const { smtpUrl, from, logger } = options
  if (!smtpUrl) {
    return {
      send: async (email) => {
        const { id: emailId, kind, to, subject, text } = email
        logger.info({ emailId, kind, email: { to, subject, text } }, 'email not sent (SMTP_URL unset): logged here instead')
        return 'logged'
      },
      close: () => undefined,
    }
  }
  // nodemailer loads with the first email sent: a process without SMTP_URL never needs it.
  let transport: Promise<Transporter> | undefined
  const connect = async () =>
    (await import('nodemailer')).default.createTransport(smtpUrl, {
      // nodemailer waits minutes by default; a dead server should fail fast and be retried.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    })
  return {
    send: async (email) => {
      transport ??= connect()
      await (await transport).sendMail({ from, to: email.to, subject: email.subject, text: email.text, html: email.html ?? undefined })
      return 'sent'
    },
    close: () =>
      void transport?.then(
        (t) => t.close(),
        () => undefined,
      ),
  }
}
