/**
 * `npm run bench [-- --smoke]`: starts the server as its own process (embedded database, or the
 * PostgreSQL server of DATABASE_URL, in a fresh database), loads it with autocannon from this
 * process, prints one table and writes bench/results/latest.json. Every figure that has a target
 * is a ratio against a baseline measured in the same run.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import pg from 'pg'

const smoke = process.argv.includes('--smoke')
const root = path.resolve(import.meta.dirname, '..')
const DURATION = smoke ? 1 : 10
const CONNECTIONS = smoke ? 10 : 100
const JWT_SECRET = 'bench-secret-that-is-at-least-32-characters-long'

type Server = { child: ChildProcess; baseUrl: string; pid: number; stop: () => Promise<void> }
type Seed = { sellerId: string; apiKey: string; affiliateCode: string; ampleInventoryIds: string[]; flashInventoryId: string }
type Row = { scenario: string; rps: number; p50: number; p99: number; errors: number; non2xx: number; note?: string }
type Check = { target: string; value: string; pass: boolean }

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function startServer(env: Record<string, string>): Promise<Server & { startMs: number }> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', JWT_SECRET, BENCH_MODE: 'true', SEED_DEMO: 'false', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error('server exited during start')
    const ok = await fetch(`${baseUrl}/iam/v1/health`).then((r) => r.ok, () => false)
    if (ok) break
    if (Date.now() > deadline) throw new Error('server did not become healthy within 60 s')
    await new Promise((r) => setTimeout(r, 20))
  }
  const startMs = performance.now() - started
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  return {
    child,
    baseUrl,
    pid: child.pid!,
    startMs,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** Peak resident memory of a process so far, in MB (Linux VmHWM). */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return Math.round(kb / 1024)
}

async function load(name: string, options: autocannon.Options, note?: string): Promise<Row> {
  // A short unrecorded pass first, so that no scenario is measured on a cold JIT or cold cache.
  await autocannon({ connections: CONNECTIONS, ...options, duration: Math.max(1, Math.round(DURATION / 5)) })
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...options })
  return {
    scenario: name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    ...(note ? { note } : {}),
  }
}

const basic = (seed: Seed) => `Basic ${Buffer.from(`${seed.sellerId}:${seed.apiKey}`).toString('base64')}`

async function main() {
  const driver = process.env.DATABASE_URL ? 'postgres' : 'pglite'
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'boxoffice-bench-'))
  let databaseUrl: string | undefined
  let dropDatabase = async () => {}
  if (process.env.DATABASE_URL) {
    const name = `boxoffice_bench_${Date.now()}`
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    await admin.query(`create database ${name}`)
    await admin.end()
    const url = new URL(process.env.DATABASE_URL)
    url.pathname = `/${name}`
    databaseUrl = url.toString()
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await c.connect()
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    }
  }
  const env: Record<string, string> = { DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) }

  const rows: Row[] = []
  const checks: Check[] = []
  const figures: Record<string, number> = {}

  // Start time on an existing database: start once to create and migrate it, then time a restart.
  let server = await startServer(env)
  await server.stop()
  server = await startServer(env)
  figures.start_ms = Math.round(server.startMs)
  checks.push({ target: 'start to first healthy response ≤ 3 s', value: `${figures.start_ms} ms`, pass: figures.start_ms <= 3000 })

  try {
    const seed = (await (await fetch(`${server.baseUrl}/bench/seed`, { method: 'POST' })).json()) as Seed
    const auth = { authorization: basic(seed) }

    // Authentication overhead: the same cheap route without and with Basic (and an affiliate code).
    const plain = await load('GET /bench/ping (no auth)', { url: `${server.baseUrl}/bench/ping` })
    const withBasic = await load('GET /stf/v1/bench/ping (Basic)', { url: `${server.baseUrl}/stf/v1/bench/ping`, headers: auth })
    const withAffiliate = await load('GET /stf/v1/bench/ping (Basic + affiliate)', {
      url: `${server.baseUrl}/stf/v1/bench/ping`,
      headers: { ...auth, 'x-affiliate-code': seed.affiliateCode },
    })
    rows.push(plain, withBasic, withAffiliate)
    for (const row of [withBasic, withAffiliate]) {
      const loss = 1 - row.rps / plain.rps
      checks.push({ target: `${row.scenario}: ≤ 10 % fewer req/s than no auth`, value: `${(loss * 100).toFixed(1)} % fewer`, pass: loss <= 0.1 })
    }

    rows.push(await load('GET /iam/v1/health (database round trip)', { url: `${server.baseUrl}/iam/v1/health` }))
    figures.peak_rss_mb = peakRssMb(server.pid)
  } finally {
    await server.stop()
    await dropDatabase()
    rmSync(dataDir, { recursive: true, force: true })
  }

  const result = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    driver,
    smoke,
    duration_s: DURATION,
    connections: CONNECTIONS,
    rows,
    figures,
    checks,
  }
  mkdirSync(path.join(root, 'bench/results'), { recursive: true })
  writeFileSync(path.join(root, 'bench/results/latest.json'), `${JSON.stringify(result, null, 2)}\n`)
  writeFileSync(path.join(root, `bench/results/latest-${driver}.json`), `${JSON.stringify(result, null, 2)}\n`)

  console.log(`\nBoxoffice benchmark — ${driver}, ${os.cpus().length} cores, ${DURATION}s × ${CONNECTIONS} connections${smoke ? ' (smoke)' : ''}\n`)
  console.table(rows.map((r) => ({ scenario: r.scenario, 'req/s': r.rps, 'p50 ms': r.p50, 'p99 ms': r.p99, errors: r.errors, non2xx: r.non2xx })))
  console.table(Object.entries(figures).map(([figure, value]) => ({ figure, value })))
  console.table(checks.map((c) => ({ target: c.target, measured: c.value, met: c.pass ? 'yes' : 'NO' })))
  const broken = rows.filter((r) => r.errors > 0 || r.non2xx > 0)
  if (broken.length > 0) {
    console.error(`errors or non-2xx answers in: ${broken.map((r) => r.scenario).join(', ')}`)
    process.exitCode = 1
  }
}

await main()
