import type { FastifyInstance } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTestApp } from '../build-app.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { captureLogs } from '../support/log-capture.js'

const METRICS_TOKEN = 'metrics-token-of-the-platform-test'

/** Routes that exist only in this test, to reach each branch of the error handler. */
const probeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/echo',
    { schema: { body: z.strictObject({ name: z.string().min(1), items: z.array(z.object({ quantity: z.number().int().min(1) })).optional() }) } },
    async (request) => ({ hello: request.body.name }),
  )
  app.get('/boom', async () => {
    throw new Error('relation "secret_table" does not exist at select * from secret_table')
  })
  app.get('/bad-response', { schema: { response: { 200: z.object({ n: z.number() }) } } }, async () => ({ n: 'not a number' }) as unknown as { n: number })
  app.get('/unreachable-db', async () => {
    const error = new Error('connect ECONNREFUSED 127.0.0.1:5432') as Error & { code: string }
    error.code = 'ECONNREFUSED'
    throw new Error('Failed query: select 1', { cause: error })
  })
}

const logs = captureLogs()
let app: FastifyInstance

beforeAll(async () => {
  await resetDatabase(await testDatabase())
  app = await buildTestApp({
    env: { METRICS_TOKEN },
    logger: logs.logger,
    extend: (a) => a.register(probeRoutes, { prefix: '/probe' }),
  })
})
afterAll(() => app.close())

const expectEnvelope = (body: Record<string, unknown>, code: string, traceId: string) => {
  expect(body).toMatchObject({ code, trace_id: traceId })
  expect(typeof body.message).toBe('string')
  expect(JSON.stringify(body)).not.toMatch(/at \S+ \(|node_modules|secret_table|Failed query/)
}

describe('error envelope', () => {
  it('answers unknown routes with 404 not_found', async () => {
    const res = await app.inject({ method: 'GET', url: '/nope?x=1' })
    expect(res.statusCode).toBe(404)
    expectEnvelope(res.json(), 'not_found', res.headers['x-trace-id'] as string)
  })

  it('answers schema failures with 400 validation_error and details', async () => {
    const res = await app.inject({ method: 'POST', url: '/probe/echo', payload: { name: '', items: [{ quantity: 0 }] } })
    expect(res.statusCode).toBe(400)
    const body = res.json()
    expectEnvelope(body, 'validation_error', res.headers['x-trace-id'] as string)
    expect(body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'name' }), expect.objectContaining({ path: 'items.0.quantity' })]))
  })

  it('rejects unknown body fields', async () => {
    const res = await app.inject({ method: 'POST', url: '/probe/echo', payload: { name: 'a', seller_id: 'x' } })
    expect(res.statusCode).toBe(400)
    expect(res.json().code).toBe('validation_error')
  })

  it('answers a body that is not JSON with 400 invalid_json', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    })
    expect(res.statusCode).toBe(400)
    expectEnvelope(res.json(), 'invalid_json', res.headers['x-trace-id'] as string)
  })

  it('answers a prototype-poisoning body with a 4xx, never a 5xx', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"a","__proto__":{"admin":true}}',
    })
    expect(res.statusCode).toBe(400)
  })

  it('answers another content type with 415, text/plain included', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await app.inject({ method: 'POST', url: '/probe/echo', headers: { 'content-type': type }, payload: 'name=a' })
      expect(res.statusCode, type).toBe(415)
      expect(res.json().code).toBe('unsupported_media_type')
    }
  })

  it('answers a body over 1 MiB with 413', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }),
    })
    expect(res.statusCode).toBe(413)
    expect(res.json().code).toBe('payload_too_large')
  })

  it('hides unexpected exceptions behind 500 internal_error and logs them with the trace id', async () => {
    const res = await app.inject({ method: 'GET', url: '/probe/boom', headers: { 'x-request-id': 'boom-trace-1' } })
    expect(res.statusCode).toBe(500)
    expectEnvelope(res.json(), 'internal_error', 'boom-trace-1')
    const logged = logs.lines.find((l) => l.trace_id === 'boom-trace-1' && l.level === 50)
    expect(logged?.msg).toBe('unexpected error')
    expect(JSON.stringify(logged)).toContain('secret_table')
  })

  it('answers a response that breaks its schema with 500, not half a body', async () => {
    const res = await app.inject({ method: 'GET', url: '/probe/bad-response' })
    expect(res.statusCode).toBe(500)
    expect(res.json().code).toBe('internal_error')
  })

  it('answers an unreachable database with 503 service_unavailable and Retry-After', async () => {
    const res = await app.inject({ method: 'GET', url: '/probe/unreachable-db' })
    expect(res.statusCode).toBe(503)
    expect(res.headers['retry-after']).toBe('1')
    expectEnvelope(res.json(), 'service_unavailable', res.headers['x-trace-id'] as string)
  })

  it('keeps serving after an exception', async () => {
    await app.inject({ method: 'GET', url: '/probe/boom' })
    const res = await app.inject({ method: 'GET', url: '/iam/v1/health' })
    expect(res.statusCode).toBe(200)
  })
})

describe('trace ids', () => {
  it('puts a generated X-Trace-Id on every response', async () => {
    const ok = await app.inject({ method: 'GET', url: '/iam/v1/info' })
    const missing = await app.inject({ method: 'GET', url: '/missing' })
    expect(ok.headers['x-trace-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(missing.headers['x-trace-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(ok.headers['x-trace-id']).not.toBe(missing.headers['x-trace-id'])
  })

  it('uses a safe X-Request-Id as the trace id, in header, body and log line', async () => {
    const res = await app.inject({ method: 'GET', url: '/missing', headers: { 'x-request-id': 'req-42.abc' } })
    expect(res.headers['x-trace-id']).toBe('req-42.abc')
    expect(res.json().trace_id).toBe('req-42.abc')
    expect(logs.lines.some((l) => l.trace_id === 'req-42.abc' && l.msg === 'request completed')).toBe(true)
  })

  it('replaces an unsafe or overlong X-Request-Id', async () => {
    for (const unsafe of ['a b', '<script>', 'x'.repeat(129), 'id\u00e9']) {
      const res = await app.inject({ method: 'GET', url: '/missing', headers: { 'x-request-id': unsafe } })
      expect(res.headers['x-trace-id']).toMatch(/^[0-9a-f-]{36}$/)
    }
    const max = 'x'.repeat(128)
    const res = await app.inject({ method: 'GET', url: '/missing', headers: { 'x-request-id': max } })
    expect(res.headers['x-trace-id']).toBe(max)
  })
})

describe('service routes', () => {
  it('reports health with a database round trip', async () => {
    const res = await app.inject({ method: 'GET', url: '/iam/v1/health' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'ok', checks: { database: 'ok' } })
  })

  it('reports name, version, start and uptime', async () => {
    const res = await app.inject({ method: 'GET', url: '/iam/v1/info' })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toEqual({
      name: 'boxoffice',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      started_at: expect.any(String),
      uptime_seconds: expect.any(Number),
    })
    expect(Date.parse(body.started_at)).toBeLessThanOrEqual(Date.now())
  })
})

describe('OpenAPI and docs', () => {
  it('serves an OpenAPI 3.1 document with the service routes and the error envelope', async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' })
    expect(res.statusCode).toBe(200)
    const doc = res.json()
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/iam/v1/health', '/iam/v1/info']))
    expect(doc.paths['/openapi.json']).toBeUndefined()
    expect(doc.paths['/metrics']).toBeUndefined()
    expect(doc.components.securitySchemes).toHaveProperty('sellerBasic')
  })

  it('serves a browsable reference at /docs', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/html')
    expect(res.body).toContain('swagger')
  })
})

describe('operations', () => {
  it('serves Prometheus metrics by route and status, pool and outbox', async () => {
    await app.inject({ method: 'GET', url: '/iam/v1/health' })
    const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/plain')
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/iam\/v1\/health",status="200"\} \d+/)
    expect(res.body).toMatch(/http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/iam\/v1\/health",status="200"\}/)
    expect(res.body).toMatch(/db_pool_connections\{state="total"\} \d+/)
    expect(res.body).toMatch(/outbox_emails\{status="pending"\} 0/)
    expect(res.body).toContain('process_cpu_user_seconds_total')
  })

  it('sends security headers', async () => {
    const res = await app.inject({ method: 'GET', url: '/iam/v1/health' })
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['strict-transport-security']).toBeDefined()
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN')
    expect(res.headers['content-security-policy']).toContain("default-src 'self'")
    // Refusals carry them too.
    for (const refused of [await app.inject({ method: 'GET', url: '/no/such/route' }), await app.inject({ method: 'GET', url: '/stf/v1/events' })]) {
      expect(refused.statusCode).toBeGreaterThanOrEqual(400)
      expect(refused.headers['x-content-type-options']).toBe('nosniff')
      expect(refused.headers['content-security-policy']).toContain("default-src 'self'")
    }
  })

  it('sends no CORS headers by default', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/iam/v1/health',
      headers: { origin: 'https://admin.example.com', 'access-control-request-method': 'GET' },
    })
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('CORS when configured', () => {
  let corsApp: FastifyInstance
  beforeAll(async () => {
    corsApp = await buildTestApp({ env: { CORS_ORIGINS: 'https://admin.example.com' } })
  })
  afterAll(() => corsApp.close())

  const preflight = (url: string, origin: string) => corsApp.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST' } })

  it('allows a listed origin on the staff groups', async () => {
    for (const url of ['/iam/v1/health', '/adm/v1/sellers']) {
      const res = await preflight(url, 'https://admin.example.com')
      expect(res.statusCode, url).toBe(204)
      expect(res.headers['access-control-allow-origin']).toBe('https://admin.example.com')
    }
  })

  it('refuses other origins, and never opens the storefront to browsers', async () => {
    const other = await preflight('/iam/v1/health', 'https://evil.example.com')
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
    const stf = await preflight('/stf/v1/events', 'https://admin.example.com')
    expect(stf.headers['access-control-allow-origin']).toBeUndefined()
  })
})
