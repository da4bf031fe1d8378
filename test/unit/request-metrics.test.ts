import { Counter, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { RequestMetrics } from '../../src/platform/http/request-metrics.js'

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const requests = { name: 'http_requests_total', help: 'HTTP requests answered' }
const duration = { name: 'http_request_duration_seconds', help: 'HTTP request latency' }

/** Answers as the hook sees them: method, route, status, seconds. */
const answers: [string, string, number, number][] = [
  ['GET', '/stf/v1/events', 200, 0.0012],
  ['GET', '/stf/v1/events', 200, 0.005],
  ['GET', '/stf/v1/events', 304, 0.0007],
  ['POST', '/stf/v1/baskets', 201, 0.042],
  ['POST', '/stf/v1/baskets', 409, 0.3],
  ['GET', '/stf/v1/events/:id_or_slug', 200, 12.5],
  ['GET', 'unmatched', 404, 0.0001],
  ['POST', '/stf/v1/baskets', 201, 0.9],
]

describe('RequestMetrics', () => {
  it("is written exactly as prom-client's Counter and Histogram write the same answers", async () => {
    const theirs = new Registry()
    const labelNames = ['method', 'route', 'status'] as const
    const counter = new Counter({ ...requests, labelNames, registers: [theirs] })
    const histogram = new Histogram({ ...duration, labelNames, buckets: BUCKETS, registers: [theirs] })
    const ours = new Registry()
    const metrics = new RequestMetrics({ requests, duration: { ...duration, buckets: BUCKETS }, registers: [ours] })
    for (const [method, route, status, seconds] of answers) {
      const labels = { method, route, status: String(status) }
      counter.inc(labels)
      histogram.observe(labels, seconds)
      metrics.observe(method, route, status, seconds)
    }
    expect(await ours.metrics()).toBe(await theirs.metrics())
  })

  it('starts empty and is emptied by a reset of its registry', async () => {
    const registry = new Registry()
    const metrics = new RequestMetrics({ requests, duration: { ...duration, buckets: BUCKETS }, registers: [registry] })
    expect(await registry.metrics()).not.toContain('http_requests_total{')
    metrics.observe('GET', '/x', 200, 0.001)
    expect(await registry.metrics()).toContain('http_requests_total{method="GET",route="/x",status="200"} 1')
    registry.resetMetrics()
    expect(await registry.metrics()).not.toContain('http_requests_total{')
  })
})
