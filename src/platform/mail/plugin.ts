import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import { createMailer } from './mailer.js'
import { createOutboxWorker } from './outbox-worker.js'

export type OutboxPluginOptions = {
  config: Config
  /** Deliver emails in the background once the app is ready (default true; tests drive it by hand). */
  startWorker?: boolean | undefined
}

/** `app.outbox`: the worker that sends queued emails over SMTP; it starts when the app is ready and stops when it closes. */
export const outboxPlugin = fp<OutboxPluginOptions>(
  async (app, { config, startWorker }) => {
    const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger: app.log as Logger })
    const outbox = createOutboxWorker({ db: app.db, mailer, logger: app.log as Logger, pollMs: config.outboxPollMs })
    app.decorate('outbox', outbox)
    if (startWorker !== false) app.addHook('onReady', async () => outbox.start())
    app.addHook('onClose', async () => {
      await outbox.stop()
      mailer.close()
    })
  },
  { name: 'outbox', dependencies: ['database'] },
)
