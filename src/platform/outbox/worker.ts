import type { Logger } from 'pino'

/** An outbox row as a channel leases it: `attempts` counts this one. */
export type OutboxItem = { id: string; attempts: number }

/** What one attempt came to: `detail` is the channel's own (e.g. an HTTP status and a duration). */
export type AttemptOutcome<D = unknown> = { delivered: true; detail: D } | { delivered: false; error: string; detail: D }

/**
 * One kind of delivery through the outbox (an email over SMTP, a webhook over HTTP): where its
 * rows are, how one is sent, and what becomes of it. The worker does the rest.
 */
export type OutboxChannel<T extends OutboxItem = OutboxItem, D = unknown> = {
  kind: string
  /**
   * May wait while the process is saturated (`OutboxWorkerOptions.busy`): what it sends can be a
   * few seconds late without harm (an email, a webhook), where what frees tickets cannot.
   */
  deferrable?: boolean
  /** Rows leased per pass, and how many of them are sent at once. */
  batchSize: number
  concurrency: number
  /** Leases up to `limit` due rows for `leaseSeconds` (`leaseDue`). */
  claim(limit: number): Promise<T[]>
  /** Sends one row. A throw counts as a failed attempt with its message. */
  send(item: T): Promise<AttemptOutcome<D>>
  /** In how many ms to try a failed row again; null: give up on it. */
  retryInMs(item: T): number | null
  /** Records the outcome (and, for a failure, the next attempt or the end: `retryInMs` null). */
  settle(item: T, outcome: AttemptOutcome<D>, retryInMs: number | null): Promise<void>
  /**
   * Deletes up to `limit` rows that are done with (delivered, or given up on) and older than
   * `retentionDays`, never one still pending; answers how many it deleted.
   */
  purge?(retentionDays: number, limit: number): Promise<number>
  close?(): void | Promise<void>
}

/** Heard by `/metrics` after every attempt. */
export type AttemptListener = (kind: string, outcome: 'delivered' | 'retry' | 'gave_up', durationMs: number) => void

export type OutboxWorker = {
  start(): void
  stop(): Promise<void>
  /** Delivers what is due now (of one kind, or of every kind); answers how many rows were delivered. */
  runOnce(kind?: string): Promise<number>
  /** Deletes what is past `retentionDays` (every channel that keeps history); answers how many rows, by kind. */
  housekeep(): Promise<Record<string, number>>
  onAttempt(listener: AttemptListener): void
}

export type OutboxWorkerOptions = {
  channels: readonly OutboxChannel<OutboxItem, unknown>[]
  logger: Logger
  pollMs: number
  /** How long delivered and given-up rows are kept (for the deliveries listing and metrics). */
  retentionDays: number
  /** How often a process housekeeps (default hourly): several processes doing it at once is harmless. */
  housekeepingMs?: number
  /** Whether the process is saturated now (buyers queue for it): deferrable channels wait, up to `maxDeferMs`. */
  busy?: () => boolean
  /** The longest a deferrable channel waits for the process to be less busy (default 10 s). */
  maxDeferMs?: number
}

/** Rows deleted per statement, so that no purge holds many row locks or runs long. */
const PURGE_BATCH = 1000
/** Batches per channel per housekeeping, so that a huge backlog of history is worked off over several runs. */
const PURGE_BATCHES = 50

/**
 * The outbox's one worker: for each channel, leases due rows (SKIP LOCKED, so it is safe to run
 * in every process at once: each row goes to one worker), sends them, and records each outcome:
 * done, or tried again after a backoff, or given up. A row whose worker dies keeps its lease
 * until it runs out, then is sent again: delivery is at least once.
 */
export function createOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const { channels, logger, pollMs, retentionDays } = options
  const housekeepingMs = options.housekeepingMs ?? 3_600_000
  const maxDeferMs = options.maxDeferMs ?? 10_000
  let lastHousekeeping = 0
  /** Since when deferrable channels have waited for a busy process (null: they are not waiting). */
  let deferringSince: number | null = null
  /** Whether deferrable channels skip this tick: the process is busy, and they have not waited `maxDeferMs` yet. */
  const deferring = () => {
    if (!options.busy?.()) {
      deferringSince = null
      return false
    }
    deferringSince ??= Date.now()
    if (Date.now() - deferringSince < maxDeferMs) return true
    deferringSince = null
    return false
  }
  const listeners: AttemptListener[] = []
  const running = new Map<string, Promise<number>>()
  let timer: NodeJS.Timeout | undefined
  let immediate: NodeJS.Immediate | undefined
  /** The tick under way, which `stop()` waits for (its housekeeping too, not only its passes). */
  let ticking: Promise<void> | undefined
  let stopped = true

  async function attempt(channel: OutboxChannel, item: OutboxItem): Promise<boolean> {
    const started = performance.now()
    let outcome: AttemptOutcome
    try {
      outcome = await channel.send(item)
    } catch (error) {
      outcome = { delivered: false, error: error instanceof Error ? error.message : String(error), detail: undefined }
    }
    const durationMs = performance.now() - started
    const retryIn = outcome.delivered ? null : channel.retryInMs(item)
    await channel.settle(item, outcome, retryIn)
    const result = outcome.delivered ? 'delivered' : retryIn === null ? 'gave_up' : 'retry'
    for (const listener of listeners) listener(channel.kind, result, durationMs)
    if (!outcome.delivered) {
      logger.warn({ kind: channel.kind, id: item.id, attempts: item.attempts, retryIn, err: outcome.error }, `${channel.kind} delivery failed`)
    } else logger.debug({ kind: channel.kind, id: item.id }, `${channel.kind} delivered`)
    return outcome.delivered
  }

  async function pass(channel: OutboxChannel): Promise<number> {
    const due = await channel.claim(channel.batchSize)
    let delivered = 0
    let next = 0
    const lane = async () => {
      while (next < due.length) {
        const item = due[next++]!
        try {
          if (await attempt(channel, item)) delivered++
        } catch (error) {
          // Recording the outcome failed (the database is down): the lease runs out and the row is tried again.
          logger.warn({ kind: channel.kind, id: item.id, err: error }, 'outbox outcome not recorded')
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(channel.concurrency, due.length) }, lane))
    return delivered
  }

  function runChannel(channel: OutboxChannel): Promise<number> {
    // One pass per channel at a time per process; a caller joining a pass gets its result.
    let current = running.get(channel.kind)
    if (!current) {
      current = pass(channel).finally(() => running.delete(channel.kind))
      running.set(channel.kind, current)
    }
    return current
  }

  async function runOnce(kind?: string): Promise<number> {
    const chosen = kind === undefined ? channels : channels.filter((c) => c.kind === kind)
    if (chosen.length === 0) throw new Error(`no outbox channel ${kind}`)
    const counts = await Promise.all(chosen.map(runChannel))
    return counts.reduce((a, b) => a + b, 0)
  }

  async function housekeep(): Promise<Record<string, number>> {
    lastHousekeeping = Date.now()
    const deleted: Record<string, number> = {}
    for (const channel of channels) {
      if (!channel.purge) continue
      let total = 0
      for (let batch = 0; batch < PURGE_BATCHES; batch++) {
        const n = await channel.purge(retentionDays, PURGE_BATCH)
        total += n
        if (n < PURGE_BATCH) break
      }
      deleted[channel.kind] = total
      if (total > 0) logger.info({ kind: channel.kind, deleted: total, retentionDays }, 'outbox history purged')
    }
    return deleted
  }

  async function tick() {
    // A tick queued before `stop()` (a timer or an immediate that was already due) does nothing.
    if (stopped) return
    if (Date.now() - lastHousekeeping >= housekeepingMs) {
      await housekeep().catch((error: unknown) => logger.warn({ err: error }, 'outbox housekeeping failed'))
    }
    let again = false
    const defer = deferring()
    await Promise.all(
      channels
        .filter((channel) => !(defer && channel.deferrable))
        .map(async (channel) => {
          try {
            // A full batch means more may be waiting: go again at once.
            if ((await runChannel(channel)) >= channel.batchSize) again = true
          } catch (error) {
            logger.warn({ kind: channel.kind, err: error }, 'outbox pass failed')
          }
        }),
    )
    if (stopped) return
    if (again) immediate = setImmediate(runTick)
    else schedule()
  }

  function runTick() {
    immediate = undefined
    ticking = tick().finally(() => {
      ticking = undefined
    })
  }

  function schedule() {
    if (stopped) return
    timer = setTimeout(runTick, pollMs)
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
      if (immediate) clearImmediate(immediate)
      await ticking
      await Promise.allSettled([...running.values()])
    },
    runOnce,
    housekeep,
    onAttempt(listener) {
      listeners.push(listener)
    },
  }
}
