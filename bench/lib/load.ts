import autocannon from 'autocannon'

export type Row = {
  scenario: string
  rps: number
  p50: number
  p99: number
  requests: number
  errors: number
  non2xx: number
  '5xx': number
  note?: string
}

export type LoadSettings = { duration: number; connections: number; warmUp: boolean }

/**
 * Seconds a request may wait for its answer before autocannon counts it lost (its default is 10).
 * A slow answer shows in p99; the embedded database's single connection queues 200 writers for
 * longer than 10 s, which is slowness, not loss.
 */
export const REQUEST_TIMEOUT_S = 60

export const run = (options: autocannon.Options): Promise<autocannon.Result> =>
  new Promise((resolve, reject) => {
    autocannon({ timeout: REQUEST_TIMEOUT_S, ...options }, (error, result) => (error ? reject(error) : resolve(result)))
  })

export const toRow = (scenario: string, results: autocannon.Result[], note?: string): Row => {
  const total = (f: (r: autocannon.Result) => number) => results.reduce((sum, r) => sum + f(r), 0)
  const mean = (f: (r: autocannon.Result) => number) => total(f) / results.length
  return {
    scenario,
    // Over several rounds: every answer over the time they took together.
    rps: Math.round(total((r) => r.requests.total) / total((r) => r.duration)),
    p50: Math.round(mean((r) => r.latency.p50) * 10) / 10,
    p99: Math.round(mean((r) => r.latency.p99) * 10) / 10,
    requests: total((r) => r.requests.total),
    errors: total((r) => r.errors + r.timeouts),
    non2xx: total((r) => r.non2xx),
    '5xx': total((r) => r['5xx']),
    ...(note ? { note } : {}),
  }
}

/** A short unrecorded pass first, so that nothing is measured on a cold JIT, cold plans or cold caches. */
async function warm(settings: LoadSettings, options: autocannon.Options) {
  if (settings.warmUp) await run({ connections: settings.connections, ...options, duration: Math.max(1, Math.round(settings.duration / 5)) })
}

/** One scenario for the settings' duration. */
export async function load(name: string, settings: LoadSettings, options: autocannon.Options, note?: string): Promise<Row> {
  await warm(settings, options)
  return toRow(name, [await run({ connections: settings.connections, duration: settings.duration, ...options })], note)
}

/**
 * Scenarios whose ratios are targets, measured in alternating rounds that add up to the
 * settings' duration each, so that a change of background load between them cannot pass for a
 * difference between them. The order turns every round (A B C, B C A, C A B, …): on this kind
 * of machine the place in the round alone moves a figure by several percent (the same
 * scenario measured twice in one round came out up to 15 % apart), and a fixed order would
 * charge that to one scenario every time.
 */
export async function alternate(
  settings: LoadSettings,
  rounds: number,
  scenarios: { name: string; options: autocannon.Options; note?: string }[],
): Promise<Row[]> {
  for (const s of scenarios) await warm(settings, s.options)
  const duration = Math.max(1, Math.round(settings.duration / rounds))
  const results = scenarios.map(() => [] as autocannon.Result[])
  for (let n = 0; n < rounds; n++) {
    for (let k = 0; k < scenarios.length; k++) {
      const i = (n + k) % scenarios.length
      results[i]!.push(await run({ connections: settings.connections, duration, ...scenarios[i]!.options }))
    }
  }
  return scenarios.map((s, i) => toRow(s.name, results[i]!, s.note))
}
