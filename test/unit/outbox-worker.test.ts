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
})
