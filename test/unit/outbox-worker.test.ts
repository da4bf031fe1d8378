import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { createOutboxWorker, type OutboxChannel } from '../../src/platform/outbox/worker.js'

/** A channel of rows kept in memory that always has a full batch due, so the worker goes again at once. */
function endlessChannel() {
  let claims = 0
  let firstSettled: () => void = () => {}
  const settled = new Promise<void>((resolve) => {
    firstSettled = resolve
  })
  const channel: OutboxChannel = {
    kind: 'memory',
    batchSize: 1,
    concurrency: 1,
    claim: async () => {
      claims++
      return [{ id: String(claims), attempts: 1 }]
    },
    send: async () => ({ delivered: true, detail: undefined }),
    retryInMs: () => null,
    settle: async () => firstSettled(),
  }
  return { channel, settled, claims: () => claims }
}

/** Lets every promise chain that is already under way run on, without letting a timer or an immediate fire. */
async function drainMicrotasks(hops = 500) {
  for (let n = 0; n < hops; n++) await Promise.resolve()
}

/** Lets timers and immediates fire: several turns of the event loop. */
const turns = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe('the outbox worker', () => {
  it('runs no pass after stop(), not even one it had already queued to go again at once', async () => {
    const { channel, settled, claims } = endlessChannel()
    const worker = createOutboxWorker({ channels: [channel], logger: pino({ level: 'silent' }), pollMs: 1, retentionDays: 30 })
    worker.start()
    await settled
    // The pass ends and, its batch being full, the worker queues its next tick for the next turn.
    await drainMicrotasks()
    await worker.stop()
    const atStop = claims()
    await turns()
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(claims()).toBe(atStop)
  })

  it('holds deferrable channels back while the process is busy, for at most maxDeferMs, and never the others', async () => {
    /** A channel that counts its claims and wakes a waiter at each one. */
    const counting = (kind: string, deferrable: boolean) => {
      let claims = 0
      let waiters: (() => void)[] = []
      const channel: OutboxChannel = {
        kind,
        deferrable,
        batchSize: 10,
        concurrency: 1,
        claim: async () => {
          claims++
          for (const wake of waiters.splice(0)) wake()
          return []
        },
        send: async () => ({ delivered: true, detail: undefined }),
        retryInMs: () => null,
        settle: async () => undefined,
      }
      const nextClaim = () => new Promise<void>((resolve) => waiters.push(resolve))
      return { channel, claims: () => claims, nextClaim, reset: () => (waiters = []) }
    }
    let busy = true
    const mail = counting('email', true)
    const expiry = counting('order_expiry', false)
    const worker = createOutboxWorker({
      channels: [mail.channel, expiry.channel],
      logger: pino({ level: 'silent' }),
      pollMs: 1,
      retentionDays: 30,
      busy: () => busy,
      maxDeferMs: 60_000,
    })
    worker.start()
    // Busy: the expiry sweep keeps its turns, the emails wait.
    for (let n = 0; n < 5; n++) await expiry.nextClaim()
    expect(mail.claims()).toBe(0)
    // No longer busy: the emails go at the next tick.
    busy = false
    await mail.nextClaim()
    await worker.stop()

    // Busy for longer than maxDeferMs (0 here): the emails wait no longer.
    busy = true
    const patient = counting('email', true)
    const impatient = createOutboxWorker({
      channels: [patient.channel],
      logger: pino({ level: 'silent' }),
      pollMs: 1,
      retentionDays: 30,
      busy: () => busy,
      maxDeferMs: 0,
    })
    impatient.start()
    await patient.nextClaim()
    await impatient.stop()
  })
})
