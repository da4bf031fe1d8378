import { Agent } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { percentile } from './flash.js'
import { send, type Answer } from './http.js'
import type { Row } from './load.js'

/**
 * A request as a well-behaved client sends it: a 503 (load shed before anything was written, with
 * its Retry-After) is sent again after a short wait, at most 20 times. `retries` counts them.
 */
export async function sendRetrying(agent: Agent, tally: { retries: number }, method: string, url: string, headers: Record<string, string>, body?: string) {
  let answer = await send(agent, method, url, headers, body)
  for (let n = 1; n < 20 && answer.status === 503; n++) {
    tally.retries++
    await sleep(100 + Math.random() * 400)
    answer = await send(agent, method, url, headers, body)
  }
  return answer
}

export const codeOf = (answer: Answer) => {
  try {
    return (JSON.parse(answer.body) as { code?: string }).code ?? '?'
  } catch {
    return '?'
  }
}

/** What a batch of requests came to: its row (latency of each final answer), answers by status and code, and what it answered. */
export type Batch<T> = { row: Row; elapsedMs: number; outcomes: Record<string, number>; results: (T | null)[]; retries: number }

/**
 * `count` requests, at most `concurrency` at a time over one keep-alive agent: `build(n)` makes
 * request n, `read(n, answer)` takes what its success answered (null: not a success).
 */
export async function batch<T>(
  scenario: string,
  count: number,
  concurrency: number,
  build: (n: number) => { method: string; url: string; headers: Record<string, string>; body?: unknown },
  succeeded: (status: number) => boolean,
  read: (body: unknown) => T,
  note: string,
): Promise<Batch<T>> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const tally = { retries: 0 }
  const outcomes: Record<string, number> = {}
  const results: (T | null)[] = Array.from({ length: count }, () => null)
  const latencies: number[] = []
  let next = 0
  const started = performance.now()
  const lane = async () => {
    while (next < count) {
      const n = next++
      const { method, url, headers, body } = build(n)
      const answer = await sendRetrying(agent, tally, method, url, headers, body === undefined ? undefined : JSON.stringify(body))
      latencies.push(answer.ms)
      const key = answer.status === 0 ? 'lost' : succeeded(answer.status) ? String(answer.status) : `${answer.status} ${codeOf(answer)}`
      outcomes[key] = (outcomes[key] ?? 0) + 1
      if (succeeded(answer.status)) results[n] = read(JSON.parse(answer.body))
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane))
  } finally {
    agent.destroy()
  }
  const elapsedMs = performance.now() - started
  const sorted = latencies.sort((a, b) => a - b)
  const failed = results.filter((r) => r === null).length
  const statusCount = (test: (key: string) => boolean) =>
    Object.entries(outcomes)
      .filter(([key]) => test(key))
      .reduce((sum, [, n]) => sum + n, 0)
  return {
    row: {
      scenario,
      rps: Math.round(count / (elapsedMs / 1000)),
      p50: Math.round(percentile(sorted, 50) * 10) / 10,
      p99: Math.round(percentile(sorted, 99) * 10) / 10,
      requests: count,
      errors: outcomes.lost ?? 0,
      non2xx: failed - (outcomes.lost ?? 0),
      '5xx': statusCount((key) => key.startsWith('5')),
      note: `${note}; ${concurrency} at a time${tally.retries > 0 ? `; ${tally.retries} fast 503s retried` : ''}`,
    },
    elapsedMs,
    outcomes,
    results,
    retries: tally.retries,
  }
}
