import autocannon from 'autocannon'
import { afterEach, describe, expect, it } from 'vitest'
import { createScratchDatabase } from '../support/database.js'
import { startServerProcess, type ServerProcess } from '../support/server-process.js'
import { TcpProxy } from '../support/tcp-proxy.js'

// Faults injected into a real server process under load, on real PostgreSQL. Every load is
// bounded in time and aimed at 127.0.0.1 only.
const PG_URL = process.env.TEST_DATABASE_URL!

let server: ServerProcess | undefined
let proxy: TcpProxy | undefined
afterEach(async () => {
  await server?.stop('SIGKILL')
  await proxy?.down()
  server = undefined
  proxy = undefined
})

type Tally = { statuses: Map<number, number>; maxLatencyMs: number; errors: number; total: number }

/** Runs a bounded load and counts answers by status. */
function loadFor(url: string, seconds: number, connections = 20) {
  const tally: Tally = { statuses: new Map(), maxLatencyMs: 0, errors: 0, total: 0 }
  let finish: (result: autocannon.Result) => void = () => undefined
  const done = new Promise<autocannon.Result>((resolve) => (finish = resolve))
  const instance = autocannon({ url, connections, duration: seconds, timeout: 10 }, (_error, result) => finish(result))
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    tally.statuses.set(statusCode, (tally.statuses.get(statusCode) ?? 0) + 1)
    tally.maxLatencyMs = Math.max(tally.maxLatencyMs, responseTime)
    tally.total++
  })
  instance.on('reqError', () => tally.errors++)
  return { tally, done }
}

describe('PostgreSQL stopped and restarted during load', () => {
  it('answers fast 503s while it is down and recovers without a restart of the app', async () => {
    const target = new URL(PG_URL)
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432))
    const viaProxy = new URL(await createScratchDatabase(PG_URL))
    viaProxy.port = String(proxy.port)
    server = await startServerProcess({ DB_CONNECT_TIMEOUT_MS: '500', DB_STATEMENT_TIMEOUT_MS: '1000' }, { databaseUrl: viaProxy.toString() })

    const { tally, done } = loadFor(`${server.baseUrl}/iam/v1/health`, 6)
    await new Promise((r) => setTimeout(r, 1500))
    await proxy.down()
    await new Promise((r) => setTimeout(r, 2000))
    const duringOutage = new Map(tally.statuses)
    await proxy.up()
    await done

    // Only health answers: ok, or unavailable; never a hang, never a crash.
    expect([...tally.statuses.keys()].sort()).toEqual([200, 503])
    expect(duringOutage.get(503) ?? 0).toBeGreaterThan(0)
    expect(tally.maxLatencyMs).toBeLessThan(3000)
    expect(tally.errors).toBe(0)
    // Recovered: the process is the same one, and healthy again.
    const after = await fetch(`${server.baseUrl}/iam/v1/health`)
    expect(after.status).toBe(200)
    expect(server.child.exitCode).toBeNull()
    console.info(`outage under load: ${tally.total} requests, ${tally.statuses.get(503)} answered 503, max latency ${tally.maxLatencyMs} ms`)
  }, 60_000)
})

describe('SIGTERM under load', () => {
  it('completes requests in flight, refuses new ones and exits 0', async () => {
    server = await startServerProcess()
    const { tally, done } = loadFor(`${server.baseUrl}/iam/v1/health`, 4)
    await new Promise((r) => setTimeout(r, 1500))
    server.child.kill('SIGTERM')
    const code = await server.exited
    await done
    expect(code).toBe(0)
    // Everything answered before the listener closed was a success or a 503 "closing".
    for (const status of tally.statuses.keys()) expect([200, 503]).toContain(status)
    expect(tally.statuses.get(200) ?? 0).toBeGreaterThan(100)
    console.info(`SIGTERM under load: ${tally.total} answered, ${tally.errors} refused after close`)
  }, 60_000)
})
