import type { Metric, Registry } from 'prom-client'

/** One combination of method, route and status: its answers, their latency's sum and its buckets. */
type Tally = {
  readonly labels: Readonly<{ method: string; route: string; status: string }>
  count: number
  sum: number
  /** Answers per bucket, not cumulative: `perBucket[i]` counts the latencies in (bounds[i - 1], bounds[i]]. */
  readonly perBucket: Float64Array
}

type Value = { labels: Record<string, string | number>; value: number; metricName?: string }

export type RequestMetricsOptions = {
  requests: { name: string; help: string }
  duration: { name: string; help: string; buckets: readonly number[] }
  registers: Registry[]
}

/**
 * `http_requests_total` (a counter) and `http_request_duration_seconds` (a histogram), by method,
 * route and status, exposed exactly as prom-client's Counter and Histogram expose them.
 *
 * They are counted on every request, so the count is one tally per combination found by three
 * Map lookups (route, method, status), bumped in place: no label object, no label check and no
 * label hashing per request as prom-client's `inc` and `observe` do. The exposition is built
 * when Prometheus scrapes.
 */
export class RequestMetrics {
  private readonly tallies = new Map<string, Map<string, Map<number, Tally>>>()
  private readonly bounds: Float64Array

  constructor(options: RequestMetricsOptions) {
    this.bounds = Float64Array.from([...options.duration.buckets].sort((a, b) => a - b))
    const requests = this.metric(options.requests.name, options.requests.help, 'counter', () => this.requestValues())
    const duration = this.metric(options.duration.name, options.duration.help, 'histogram', () => this.durationValues(options.duration.name))
    for (const registry of options.registers) {
      registry.registerMetric(requests)
      registry.registerMetric(duration)
    }
  }

  /** Counts one answer and its latency in seconds. */
  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.tallies.get(route)
    if (byMethod === undefined) {
      byMethod = new Map()
      this.tallies.set(route, byMethod)
    }
    let byStatus = byMethod.get(method)
    if (byStatus === undefined) {
      byStatus = new Map()
      byMethod.set(method, byStatus)
    }
    let tally = byStatus.get(status)
    if (tally === undefined) {
      tally = { labels: { method, route, status: String(status) }, count: 0, sum: 0, perBucket: new Float64Array(this.bounds.length) }
      byStatus.set(status, tally)
    }
    tally.count++
    tally.sum += seconds
    const bounds = this.bounds
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        tally.perBucket[i]!++
        break
      }
    }
  }

  private *all(): Generator<Tally> {
    for (const byMethod of this.tallies.values()) for (const byStatus of byMethod.values()) yield* byStatus.values()
  }

  private requestValues(): Value[] {
    return Array.from(this.all(), (tally) => ({ labels: { ...tally.labels }, value: tally.count }))
  }

  /** As prom-client writes a histogram: the cumulative buckets with `le` first, `+Inf`, then the sum and the count. */
  private durationValues(name: string): Value[] {
    const values: Value[] = []
    for (const tally of this.all()) {
      let cumulative = 0
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += tally.perBucket[i]!
        values.push({ labels: { le: this.bounds[i]!, ...tally.labels }, value: cumulative, metricName: `${name}_bucket` })
      }
      values.push({ labels: { le: '+Inf', ...tally.labels }, value: tally.count, metricName: `${name}_bucket` })
      values.push({ labels: { ...tally.labels }, value: tally.sum, metricName: `${name}_sum` })
      values.push({ labels: { ...tally.labels }, value: tally.count, metricName: `${name}_count` })
    }
    return values
  }

  /** A metric as a registry reads it (`get`, `reset`), built from the tallies when asked. */
  private metric(name: string, help: string, type: 'counter' | 'histogram', values: () => Value[]): Metric {
    const metric = {
      name,
      help,
      type,
      aggregator: 'sum' as const,
      get: async () => ({ name, help, type, values: values(), aggregator: 'sum' as const }),
      reset: () => this.tallies.clear(),
    }
    return metric as unknown as Metric
  }
}
