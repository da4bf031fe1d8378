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

/** Starts the server as its own process and waits for its first healthy answer. */
export async function startServer(env: Record<string, string>, options: { fromSource: boolean; nodeFlags?: string[] }): Promise<Server> {
  const port = await freePort()
  const args = [
    ...IMAGE_NODE_FLAGS,
    ...(options.nodeFlags ?? []),
    ...(options.fromSource ? ['--import', 'tsx', 'bench/server.ts'] : ['bench/.build/bench/server.js']),
  ]
  const started = performance.now()
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error('server exited during start')
    const ok = await fetch(`${baseUrl}/iam/v1/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error('server did not become healthy within 60 s')
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

/** CPU time of every process of this machine named `postgres` (a local server's backends), in ms. */
function postgresCpuMs(): number {
  let total = 0
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuMsOf(pid)
    } catch {
      // gone meanwhile
    }
  }
  return total
}

type CpuSample = { atMs: number; server: number; postgres: number; bench: number }

/**
 * Samples, every 50 ms while `work` runs, the CPU time used so far by the server (all its
 * processes together when several serve the one database), by the local
 * PostgreSQL's processes (backends that end meanwhile take their time with them: a lower bound)
 * and by this benchmark process (the load generator). `until(t)` answers each one's share of one
 * core over the first t ms, so a flash sale can say where the 2 cores went while it sold.
 */
export async function sampleCpu<T>(pids: readonly number[], work: () => Promise<T>) {
  const started = performance.now()
  const take = (): CpuSample => {
    const usage = process.cpuUsage()
    const server = pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0)
    return { atMs: performance.now() - started, server, postgres: postgresCpuMs(), bench: (usage.user + usage.system) / 1000 }
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
    const share = (key: 'server' | 'postgres' | 'bench') => Math.round(((last[key] - first[key]) / span) * 100) / 100
    return { server: share('server'), postgres: share('postgres'), bench: share('bench'), spanMs: Math.round(span) }
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
