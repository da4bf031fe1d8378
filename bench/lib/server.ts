import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { copyFileSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import path from 'node:path'
import pg from 'pg'
import { copyFunctionFiles } from '../../scripts/copy-function-files.js'

export const root = path.resolve(import.meta.dirname, '../..')

export type Server = { child: ChildProcess; baseUrl: string; pid: number; startMs: number; stop: () => Promise<void> }

/** Where the benchmark's server is compiled to, laid out like the image: package.json and migrations beside the code. */
const BUILD = path.join(root, 'bench/.build')

/**
 * Compiles the benchmark's server (bench/server.ts with src/) as the image compiles src/ into
 * dist/, the same compiler and options, so that start time and memory are those of compiled
 * JavaScript, not of on-the-fly TypeScript. The product's dist/ holds nothing of the benchmark.
 */
export function buildServer() {
  rmSync(BUILD, { recursive: true, force: true })
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.bench.json'], {
    cwd: root,
    stdio: 'inherit',
  })
  if (result.status !== 0) throw new Error('the build failed')
  copyFunctionFiles(path.join(root, 'src'), path.join(BUILD, 'src'))
  // The compiled src/ finds package.json, migrations/ and scan-page/ one level up, as dist/ does in the image.
  copyFileSync(path.join(root, 'package.json'), path.join(BUILD, 'package.json'))
  symlinkSync(path.join(root, 'migrations'), path.join(BUILD, 'migrations'), 'dir')
  symlinkSync(path.join(root, 'scan-page'), path.join(BUILD, 'scan-page'), 'dir')
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** The Node flags the image runs the server with (Dockerfile, NODE_OPTIONS): the benchmark measures the same. */
export const IMAGE_NODE_FLAGS = ['--max-old-space-size=256', '--max-semi-space-size=8']
/** The other variables of the image's environment that change how the process runs (Dockerfile): the benchmark sets them too. */
export const IMAGE_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' }

/** Starts the server as its own process and waits for its first healthy answer. */
export function startServer(env: Record<string, string>, options: { fromSource: boolean; nodeFlags?: string[] }): Promise<Server> {
  return startProcess({
    script: options.fromSource ? 'bench/server.ts' : 'bench/.build/bench/server.js',
    fromSource: options.fromSource,
    nodeFlags: [...IMAGE_NODE_FLAGS, ...(options.nodeFlags ?? [])],
    env: { ...IMAGE_ENV, ...env },
    healthPath: '/iam/v1/health',
  })
}

/**
 * Starts one of the benchmark's baselines (bench/server/*-baseline.ts and the like) as its own
 * process, compiled like the server (or through tsx with `fromSource`), with Node's default flags
 * unless told, and waits for its first healthy answer at `/health`.
 */
export function startBaseline(name: string, env: Record<string, string>, options: { fromSource: boolean; nodeFlags?: string[] }): Promise<Server> {
  return startProcess({
    script: options.fromSource ? `bench/server/${name}.ts` : `bench/.build/bench/server/${name}.js`,
    fromSource: options.fromSource,
    nodeFlags: options.nodeFlags ?? [],
    env,
    healthPath: '/health',
  })
}

/** Runs `script` (relative to the root) as its own process on a free port and waits for its first healthy answer at `healthPath`. */
async function startProcess(options: {
  script: string
  fromSource: boolean
  nodeFlags: string[]
  env: Record<string, string>
  healthPath: string
}): Promise<Server> {
  const port = await freePort()
  const args = [...options.nodeFlags, ...(options.fromSource ? ['--import', 'tsx'] : []), options.script]
  const started = performance.now()
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', ...options.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.script} exited during start`)
    const ok = await fetch(`${baseUrl}${options.healthPath}`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${options.script} did not become healthy within 60 s`)
    }
    await new Promise((r) => setTimeout(r, 5))
  }
  const startMs = performance.now() - started
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve()
    else child.on('exit', () => resolve())
  })
  return {
    child,
    baseUrl,
    pid: child.pid!,
    startMs,
    stop: async () => {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    },
  }
}

const statusField = (pid: number, field: string) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024)
}

/** Resident memory now, in MB. */
export const rssMb = (pid: number) => statusField(pid, 'VmRSS')
/** Peak resident memory since start (or since `resetPeakRss`), in MB (Linux VmHWM). */
export const peakRssMb = (pid: number) => statusField(pid, 'VmHWM')

/** Resets VmHWM to the current RSS (Linux ≥ 4.0); false where the kernel refuses. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

/** The highest of the processes' resident memory now, in MB; a process gone meanwhile counts 0. */
const highestRssMb = (pids: readonly number[]) =>
  Math.max(
    0,
    ...pids.map((pid) => {
      try {
        return rssMb(pid)
      } catch {
        return 0 // the process is gone; the work will say why
      }
    }),
  )

/**
 * Samples RSS every 50 ms while `work` runs; answers the work's result and the highest sample of
 * any ONE of the processes (a bound on each process, not their sum).
 */
export async function sampleRss<T>(pids: readonly number[], work: () => Promise<T>): Promise<{ result: T; maxRssMb: number }> {
  let max = highestRssMb(pids)
  const timer = setInterval(() => {
    max = Math.max(max, highestRssMb(pids))
  }, 50)
  try {
    return { result: await work(), maxRssMb: max }
  } finally {
    clearInterval(timer)
  }
}

const CLOCK_TICKS = 100 // sysconf(_SC_CLK_TCK) on Linux

/** CPU time (user + system) of a process so far, in ms; 0 once it is gone (Linux /proc). */
function cpuMsOf(pid: number | string): number {
  try {
    // After the command's closing parenthesis: state is field 3; utime, stime are 14 and 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return 0
  }
}

/** A client backend's title: `postgres: 15/main: <user> <database> <address>(<port>) <state>`. */
const CLIENT_BACKEND = /^postgres: [^:]+: \S+ (\S+) (?:\S+\(\d+\)|\[local\])/
/** The database of each client backend seen (a backend serves one database for its life). */
const backendDatabase = new Map<string, string>()

/** Whether this `postgres` process works for `database`: its client backends and the server's own processes (writers, checkpointer, autovacuum). */
function worksFor(pid: string, database: string): boolean {
  let known = backendDatabase.get(pid)
  if (known === undefined) {
    const match = CLIENT_BACKEND.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '))
    if (!match) return true
    known = match[1]!
    backendDatabase.set(pid, known)
  }
  return known === database
}

/**
 * CPU time so far of each process of this machine named `postgres` (a local server's), in ms, by
 * pid; with `database`, only those that work for it (`worksFor`): the backends of other databases
 * (other work on a shared machine) are left out.
 */
function postgresCpuMs(database: string | undefined): Map<string, number> {
  const used = new Map<string, number>()
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres' && (database === undefined || worksFor(pid, database))) used.set(pid, cpuMsOf(pid))
    } catch {
      // gone meanwhile
    }
  }
  return used
}

/** The benchmark's PostgreSQL database, whose processes `sampleCpu` counts as `postgres` (undefined: every `postgres` process). */
let benchDatabase: string | undefined

/** Has `sampleCpu` count only the PostgreSQL processes that work for the database of `url` (see `worksFor`). */
export function countPostgresOf(url: string) {
  benchDatabase = decodeURIComponent(new URL(url).pathname.slice(1))
}

type CpuSample = { atMs: number; server: number; postgres: number; bench: number }

/**
 * Samples, every 50 ms while `work` runs, the CPU time used so far by the server (all its
 * processes together when several serve the one database), by the local
 * PostgreSQL's processes (those of the benchmark's database once `countPostgresOf` names it; a
 * backend that ends meanwhile counts what it had used at its last sample)
 * and by this benchmark process (the load generator). `until(t)` answers each one's share of one
 * core over the first t ms (and the CPU ms each used), so a flash sale can say where the 2 cores
 * went while it sold.
 */
export async function sampleCpu<T>(pids: readonly number[], work: () => Promise<T>) {
  const started = performance.now()
  // Each PostgreSQL process's time since the first sample (a process started since: all of it); one
  // that ended keeps what it had used at its last sample.
  const seen = new Map<string, { first: number; latest: number }>()
  const postgresSoFar = () => {
    const first = seen.size === 0
    for (const [pid, ms] of postgresCpuMs(benchDatabase)) {
      const entry = seen.get(pid)
      if (entry) entry.latest = ms
      else seen.set(pid, { first: first ? ms : 0, latest: ms })
    }
    let total = 0
    for (const entry of seen.values()) total += entry.latest - entry.first
    return total
  }
  const take = (): CpuSample => {
    const usage = process.cpuUsage()
    const server = pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0)
    return { atMs: performance.now() - started, server, postgres: postgresSoFar(), bench: (usage.user + usage.system) / 1000 }
  }
  const samples = [take()]
  const timer = setInterval(() => samples.push(take()), 50)
  let result: T
  try {
    result = await work()
  } finally {
    clearInterval(timer)
  }
  samples.push(take())
  /** Each process's CPU over [0, untilMs] as a share of one core (0..2 on 2 cores). */
  const until = (untilMs: number) => {
    const first = samples[0]!
    const last = samples.find((sample) => sample.atMs >= untilMs) ?? samples.at(-1)!
    const span = last.atMs - first.atMs || 1
    const used = (key: 'server' | 'postgres' | 'bench') => last[key] - first[key]
    const share = (key: 'server' | 'postgres' | 'bench') => Math.round((used(key) / span) * 100) / 100
    return {
      server: share('server'),
      postgres: share('postgres'),
      bench: share('bench'),
      spanMs: Math.round(span),
      /** CPU time used over the span, in ms (not rounded): e.g. divided by the sales made in it. */
      ms: { server: used('server'), postgres: used('postgres'), bench: used('bench') },
    }
  }
  return { result, until }
}

/** A fresh database on the server of `url`, and a function that drops it. */
export async function createDatabase(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `boxoffice_bench_${Date.now()}_${process.pid}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const dbUrl = new URL(url)
  dbUrl.pathname = `/${name}`
  return {
    url: dbUrl.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: url })
      await c.connect()
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    },
  }
}
