import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../build-app.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { captureLogs } from '../support/log-capture.js'

const requestLines = (lines: Record<string, unknown>[], traceId: string) =>
  lines.filter((line) => line.trace_id === traceId && (line.msg === 'incoming request' || line.msg === 'request completed'))

beforeAll(async () => {
  await resetDatabase(await testDatabase())
})

describe('request logging of the readiness probe', () => {
  it('writes no info line for a healthy probe, while every other request keeps its two', async () => {
    const logs = captureLogs('info')
    const app = await buildTestApp({ logger: logs.logger })
    try {
      const health = await app.inject({ method: 'GET', url: '/iam/v1/health' })
      expect(health.statusCode).toBe(200)
      const info = await app.inject({ method: 'GET', url: '/iam/v1/info' })
      expect(requestLines(logs.lines, String(health.headers['x-trace-id']))).toEqual([])
      expect(requestLines(logs.lines, String(info.headers['x-trace-id'])).map((line) => line.msg)).toEqual(['incoming request', 'request completed'])
    } finally {
      await app.close()
    }
  })

  it('logs the probe at debug, for whoever asks for that level', async () => {
    const logs = captureLogs('debug')
    const app = await buildTestApp({ logger: logs.logger })
    try {
      const health = await app.inject({ method: 'GET', url: '/iam/v1/health' })
      const lines = requestLines(logs.lines, String(health.headers['x-trace-id']))
      expect(lines.map((line) => [line.msg, line.level])).toEqual([
        ['incoming request', 20],
        ['request completed', 20],
      ])
    } finally {
      await app.close()
    }
  })

  it('writes no request line at warn, for probes and other requests alike', async () => {
    const logs = captureLogs('warn')
    const app = await buildTestApp({ logger: logs.logger })
    try {
      const traceIds = []
      for (const url of ['/iam/v1/health', '/iam/v1/info', '/iam/v1/no-such-route'])
        traceIds.push(String((await app.inject({ method: 'GET', url })).headers['x-trace-id']))
      for (const traceId of traceIds) expect(requestLines(logs.lines, traceId)).toEqual([])
    } finally {
      await app.close()
    }
  })
})
