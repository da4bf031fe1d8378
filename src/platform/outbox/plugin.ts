import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import { createOutboxWorker, type OutboxChannel, type OutboxItem } from './worker.js'

export type OutboxPluginOptions = {
  config: Config
  /** The kinds of delivery, made once the database is open (an email channel, a webhook channel). */
  channels: (app: FastifyInstance) => OutboxChannel<OutboxItem, unknown>[]
  /** Deliver in the background once the app is ready (default true; tests drive it by hand). */
  startWorker?: boolean | undefined
  /** Whether the process is saturated now: emails and webhooks then wait a little (OutboxWorkerOptions.busy). */
  busy?: (() => boolean) | undefined
}

/**
 * `app.outbox`: the worker that delivers every outbox row (emails, webhooks); it starts when the
 * app is ready and stops, then closes its channels, when the app closes.
 */
export const outboxPlugin = fp<OutboxPluginOptions>(
  async (app, { config, channels: make, startWorker, busy }) => {
    const channels = make(app)
    const outbox = createOutboxWorker({
      channels,
      logger: app.log as Logger,
      pollMs: config.outboxPollMs,
      retentionDays: config.outboxRetentionDays,
      busy,
    })
    app.decorate('outbox', outbox)
    if (startWorker !== false) app.addHook('onReady', async () => outbox.start())
    app.addHook('onClose', async () => {
      await outbox.stop()
      for (const channel of channels) await channel.close?.()
    })
  },
  { name: 'outbox', dependencies: ['database'] },
)
