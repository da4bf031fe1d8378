import { connect } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../build-app.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { startServerProcess, type ServerProcess } from '../support/server-process.js'
import { captureLogs } from '../support/log-capture.js'
import { eventually } from '../support/smtp-sink.js'

/** Sends a request over a raw socket in two parts, so it can be left in flight. */
function rawRequest(port: number, head: string) {
  const socket = connect(port, '127.0.0.1')
  let response = ''
  socket.on('data', (d) => (response += d.toString()))
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(response)))
  socket.on('error', () => undefined)
  socket.write(head)
  return { socket, closed }
}

describe('graceful shutdown of the server process', () => {
  let server: ServerProcess
  beforeAll(async () => {
    server = await startServerProcess()
  }, 90_000)
  afterAll(async () => {
    await server?.stop('SIGKILL')
  })

  it('serves health, then on SIGTERM finishes the request in flight, refuses new ones and exits 0', async () => {
    const health = await fetch(`${server.baseUrl}/iam/v1/health`)
    expect(health.status).toBe(200)
    expect(health.headers.get('x-trace-id')).toBeTruthy()

    const body = JSON.stringify({ username: 'someone@example.com', password: 'not-a-real-one' })
    const inFlight = rawRequest(
      server.port,
      `POST /iam/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    )
    // SIGTERM only once the server has the request (its log line says so).
    await eventually(() => server.output().includes('"url":"/iam/v1/auth/login"'), 30_000)
    server.child.kill('SIGTERM')

    // The listener closes: a new connection is soon refused or answered 503 (however busy the machine).
    const late = () =>
      fetch(`${server.baseUrl}/iam/v1/health`).then(
        (r) => r.status,
        () => 'refused',
      )
    await eventually(async () => [503, 'refused'].includes(await late()), 20_000, 50)

    // The rest of the body, without half-closing the socket (as a real client waits for its answer).
    inFlight.socket.write(body.slice(10))
    const response = await inFlight.closed
    expect(response).toMatch(/^HTTP\/1\.1 \d{3}/)
    expect(response).not.toMatch(/^HTTP\/1\.1 5\d\d/)
    expect(response).toContain('x-trace-id')
    expect(response).toContain('"code":"invalid_credentials"')

    expect(await server.exited).toBe(0)
    expect(server.output()).toContain('shutting down')
  }, 90_000)
})

describe('closing the app', () => {
  let app: FastifyInstance
  let arrived: () => void = () => undefined
  const arrival = new Promise<void>((resolve) => (arrived = resolve))
  beforeAll(async () => {
    await resetDatabase(await testDatabase())
    app = await buildTestApp({
      extend: (a) =>
        a.get('/slow', async () => {
          arrived()
          await new Promise((r) => setTimeout(r, 300))
          return { done: true }
        }),
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
  })

  it('drains a request in flight before it closes, and its answer ends its kept-alive connection', async () => {
    const address = app.server.address() as { port: number }
    const pending = rawRequest(address.port, 'GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n')
    await arrival
    await app.close()
    const response = await pending.closed
    expect(response).toMatch(/^HTTP\/1\.1 200 /)
    expect(response.toLowerCase()).toContain('connection: close')
    expect(response.endsWith('{"done":true}')).toBe(true)
  })
})

describe('closing the app with a request whose client went away', () => {
  const logs = captureLogs('warn')
  let app: FastifyInstance
  let arrived: () => void = () => undefined
  const arrival = new Promise<void>((resolve) => (arrived = resolve))
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => (release = resolve))
  beforeAll(async () => {
    await resetDatabase(await testDatabase())
    app = await buildTestApp({
      logger: logs.logger,
      extend: (a) =>
        a.get('/held', async () => {
          arrived()
          await released
          return { done: true }
        }),
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
  })

  it('does not wait for it: its answer has no one to go to', async () => {
    const address = app.server.address() as { port: number }
    const abandoned = rawRequest(address.port, 'GET /held HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n')
    await arrival
    abandoned.socket.destroy()
    await abandoned.closed
    // The handler is still waiting: a drain that counted it would hold the close until its deadline.
    await app.close()
    release()
    expect(logs.lines.filter((line) => line.msg === 'closing with requests still in flight')).toEqual([])
  })
})
