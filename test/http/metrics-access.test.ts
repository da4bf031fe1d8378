import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../build-app.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { freePort } from '../support/smtp-sink.js'

const TOKEN = 'a-metrics-token-for-the-scraper'

beforeAll(async () => {
  await resetDatabase(await testDatabase())
})

describe('GET /metrics', () => {
  it('is served nowhere by default: 404 like any unknown path', async () => {
    const app = await buildTestApp()
    try {
      const res = await app.inject({ method: 'GET', url: '/metrics' })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toMatchObject({ code: 'not_found' })
      expect(res.body).not.toContain('process_cpu')
    } finally {
      await app.close()
    }
  })

  describe('with METRICS_TOKEN', () => {
    let app: FastifyInstance
    beforeAll(async () => {
      app = await buildTestApp({ env: { METRICS_TOKEN: TOKEN } })
    })
    afterAll(() => app?.close())

    it('answers the Bearer token', async () => {
      const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
      expect(res.statusCode).toBe(200)
      expect(res.body).toContain('process_cpu_user_seconds_total')
      // Priority admission: nothing in progress, nothing waiting.
      expect(res.body).toContain('admission_requests{state="first"} 0')
      expect(res.body).toContain('admission_requests{state="waiting"} 0')
      expect(res.body).toContain('hold_queue_holds{state="waiting"} 0')
    })

    it('refuses no token, another token and other schemes with 401', async () => {
      for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, TOKEN]) {
        const res = await app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} })
        expect(res.statusCode, String(authorization)).toBe(401)
        expect(res.json()).toMatchObject({ code: 'unauthorized', trace_id: res.headers['x-trace-id'] })
        expect(res.body).not.toContain('process_cpu')
      }
    })
  })

  it('refuses a METRICS_TOKEN shorter than 16 characters at start', async () => {
    await expect(buildTestApp({ env: { METRICS_TOKEN: 'short' } })).rejects.toThrow(/METRICS_TOKEN/)
  })

  describe('with METRICS_PORT', () => {
    let app: FastifyInstance
    let metricsPort: number
    beforeAll(async () => {
      metricsPort = await freePort()
      app = await buildTestApp({ env: { METRICS_PORT: String(metricsPort) } })
      await app.listen({ port: 0, host: '127.0.0.1' })
    })
    afterAll(() => app?.close())

    it('serves the metrics on 127.0.0.1 at that port, without a token', async () => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain('text/plain')
      expect(await res.text()).toContain('process_cpu_user_seconds_total')
      expect((await fetch(`http://127.0.0.1:${metricsPort}/stf/v1/events`)).status).toBe(404)
    })

    it('serves nothing of them on the API port', async () => {
      const { port } = app.server.address() as { port: number }
      const res = await fetch(`http://127.0.0.1:${port}/metrics`)
      expect(res.status).toBe(404)
    })

    it('stops serving them when the app closes', async () => {
      const other = await freePort()
      const closing = await buildTestApp({ env: { METRICS_PORT: String(other) } })
      await closing.listen({ port: 0, host: '127.0.0.1' })
      expect((await fetch(`http://127.0.0.1:${other}/metrics`)).status).toBe(200)
      await closing.close()
      await expect(fetch(`http://127.0.0.1:${other}/metrics`)).rejects.toThrow()
    })
  })
})
