import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { copyFunctionFiles } from '../../scripts/copy-function-files.js'
import { run } from './load.js'
import { createDatabase, IMAGE_ENV, IMAGE_NODE_FLAGS, peakRssMb, resetPeakRss, root, rssMb } from './server.js'

/**
 * `npm run bench -- --only=memory`: the server's resident memory (RSS) as a newcomer meets it.
 *
 * Embedded database: `npm start`'s own command (package.json) on a fresh data folder, so its first
 * start creates the database and seeds the demo; then at rest; then the demo: the banner's command
 * lines run as printed (bash, curl) and a few hundred reads of the demo's pages (events, seat
 * map, an order, its PDF and QR, the OpenAPI document, the docs, the scanner page) one after the
 * other, as a person goes through them; then as many reads ten at once, a load rather than a
 * demo; then a restart on that folder. With DATABASE_URL: `node dist/server.js` (built as `npm run build`
 * does, with the image's NODE_OPTIONS) over a fresh database of that server, created and
 * dropped. `--dist` runs the built server over the embedded database too.
 *
 * Each reading: RSS now and its peak since the phase began (Linux VmRSS, VmHWM), the file-backed
 * part (the node binary and libraries, shared with other processes), the resident part of the
 * embedded database's WebAssembly memory, and what V8 says of its heap (bench/lib/memory-probe.mjs,
 * loaded with `--import`).
 */
export type MemoryOptions = {
  databaseUrl: string | undefined
  dist: boolean
  requests: number
  restMs: number
  /** Node flags added to the command's (`--server-flags=`), to compare. */
  nodeFlags: string[]
}

export type MemoryReading = {
  phase: string
  rss_mb: number
  peak_rss_mb: number
  file_mb: number
  wasm_resident_mb: number | null
  heap_total_mb: number
  heap_used_mb: number
  external_mb: number
  array_buffers_mb: number
  code_mb: number
  note?: string
}

export type MemoryResult = {
  command: string
  readings: MemoryReading[]
  figures: Record<string, number | string>
  notes: string[]
}

const PROBE = path.join(root, 'bench/lib/memory-probe.mjs')
const DIST = path.join(root, 'dist')

/** `npm start`'s command line as package.json says it: its variables, and node's arguments (run with this node). */
function startCommand(): { env: Record<string, string>; args: string[] } {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  const words = pkg.scripts.start!.split(/\s+/)
  const env: Record<string, string> = {}
  while (/^[A-Z_]+=/.test(words[0] ?? '')) {
    const [name, value] = words.shift()!.split('=') as [string, string]
    env[name] = value
  }
  if (words[0] !== 'node') throw new Error(`npm start runs ${words[0]}, not node: the memory bench cannot follow it`)
  return { env, args: words.slice(1) }
}

/** `npm run build`: tsc into dist/ and the function files beside it. */
function buildDist() {
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) throw new Error('the build failed')
  copyFunctionFiles(path.join(root, 'src'), DIST)
}

type Started = { child: ChildProcess; pid: number; baseUrl: string; output: () => string; startMs: number; stop: () => Promise<void> }

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net')
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** Starts the server (its node flags and script in `args`), and waits for its first healthy answer and, with `banner`, for the demo banner. */
async function start(args: string[], env: Record<string, string>, banner: boolean): Promise<Started> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, [...args.slice(0, -1), '--import', PROBE, args.at(-1)!], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited during start:\n${output}`)
    const healthy = await fetch(`${baseUrl}/iam/v1/health`).then(
      (r) => r.ok,
      () => false,
    )
    // The banner is written in one piece once the server listens, and ends with an empty line.
    if (healthy && (!banner || /Demo data created[\s\S]*?\n\n/.test(output))) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`the server was not ready within 120 s:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  return {
    child,
    pid: child.pid!,
    baseUrl,
    output: () => output,
    startMs: performance.now() - started,
    stop: async () => {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    },
  }
}

const statusMb = (pid: number, field: string) =>
  Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024)

/**
 * The resident part of the process's WebAssembly memories: V8 reserves each with a guard region
 * of several GB after it (no access), so a read-write anonymous mapping followed by a reservation
 * of 4 GB or more is one. Null when none holds anything (the PostgreSQL server).
 */
function wasmResidentMb(pid: number): number | null {
  const maps: { size: number; perm: string; name: string; rss: number }[] = []
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (head) maps.push({ size: Number.parseInt(head[2]!, 16) - Number.parseInt(head[1]!, 16), perm: head[3]!, name: head[4] ?? '', rss: 0 })
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss && maps.length > 0) maps.at(-1)!.rss = Number(rss[1]) * 1024
  }
  let resident = 0
  for (let i = 0; i + 1 < maps.length; i++) {
    const [memory, guard] = [maps[i]!, maps[i + 1]!]
    if (memory.perm === 'rw-p' && memory.name === '' && guard.perm === '---p' && guard.size >= 4 * 2 ** 30) resident += memory.rss
  }
  return resident >= 1048576 ? Math.round(resident / 1048576) : null
}

/** What the probe in the server says now. */
async function probe(pid: number, file: string): Promise<Record<string, number>> {
  const before = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0
  process.kill(pid, 'SIGWINCH')
  const deadline = Date.now() + 10_000
  for (;;) {
    const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []
    if (lines.length > before) return JSON.parse(lines.at(-1)!) as Record<string, number>
    if (Date.now() > deadline) throw new Error('the memory probe did not answer')
    await new Promise((r) => setTimeout(r, 20))
  }
}

async function read(server: Started, probeFile: string, phase: string, note?: string): Promise<MemoryReading> {
  const v8 = await probe(server.pid, probeFile)
  return {
    phase,
    rss_mb: rssMb(server.pid),
    peak_rss_mb: peakRssMb(server.pid),
    file_mb: statusMb(server.pid, 'RssFile'),
    wasm_resident_mb: wasmResidentMb(server.pid),
    heap_total_mb: v8.heap_total!,
    heap_used_mb: v8.heap_used!,
    external_mb: v8.external!,
    array_buffers_mb: v8.array_buffers!,
    code_mb: v8.code!,
    ...(note ? { note } : {}),
  }
}

/** What the first start's banner printed: the credentials and the demo's ids. */
function parseBanner(output: string) {
  const tried = /try:\s+curl -u (\S+):(\S+) (\S+)\/stf\/v1\/events/.exec(output)
  const order = /demo order:\s+(\S+), tickets (\S+)/.exec(output)
  const seatMap = /the seat map[^:\n]*\(same credentials\): \S+?(\/stf\/v1\/\S+)/.exec(output)
  if (!tried || !order || !seatMap) throw new Error(`the demo banner did not say what the memory bench reads:\n${output}`)
  const text = output.slice(output.indexOf('Demo data created'))
  // The lines to paste: indented by four spaces, each a command (curl, or a variable set from one).
  const commands = text
    .split('\n')
    .filter((line) => /^ {4}(curl |[A-Z]+=\$\(curl )/.test(line))
    .map((line) => line.trim())
  return { sellerId: tried[1]!, apiKey: tried[2]!, orderId: order[1]!.replace(/,$/, ''), ticket: order[2]!, seatMapPath: seatMap[1]!, commands }
}

/** Runs the banner's lines as printed, one after the other in one bash, as a newcomer pastes them. */
function runBannerLines(commands: string[]): { ok: boolean; output: string } {
  const result = spawnSync('bash', ['-c', commands.join('\n')], { encoding: 'utf8', timeout: 120_000 })
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` }
}

/** Pages that do not answer 200, each asked once. */
async function unanswered(baseUrl: string, paths: string[], headers: Record<string, string>) {
  const failed: string[] = []
  for (const p of paths) {
    const res = await fetch(`${baseUrl}${p}`, { headers })
    await res.arrayBuffer()
    if (res.status !== 200) failed.push(`${p}: ${res.status}`)
  }
  return failed
}

/** `amount` reads of the pages in turns over `connections` connections. */
async function readPages(baseUrl: string, paths: string[], headers: Record<string, string>, amount: number, connections: number) {
  const result = await run({ url: baseUrl, connections, amount, headers, requests: paths.map((p) => ({ method: 'GET' as const, path: p })) })
  return { requests: result.requests.total, bad: result.errors + result.timeouts + result.non2xx }
}

export async function memoryBench(options: MemoryOptions): Promise<MemoryResult> {
  const onPostgres = Boolean(options.databaseUrl)
  const dist = options.dist || onPostgres
  if (dist) buildDist()
  // The image sets these in its environment (Dockerfile): the built server runs with them.
  const command = dist ? { env: { ...IMAGE_ENV }, args: [...IMAGE_NODE_FLAGS, path.join(DIST, 'server.js')] } : startCommand()
  const args = [...options.nodeFlags, ...command.args]
  const shown = `${Object.entries(command.env)
    .map(([name, value]) => `${name}=${value} `)
    .join('')}node ${args.join(' ')}`.replace(`${root}/`, '')
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'boxoffice-memory-'))
  const probeFile = path.join(dataDir, 'probe.jsonl')
  const database = options.databaseUrl ? await createDatabase(options.databaseUrl) : undefined
  const env: Record<string, string> = {
    ...command.env,
    DATA_DIR: path.join(dataDir, 'data'),
    BENCH_MEMORY_PROBE: probeFile,
    ...(database ? { DATABASE_URL: database.url, JWT_SECRET: randomBytes(32).toString('base64url') } : {}),
  }
  const readings: MemoryReading[] = []
  const figures: Record<string, number | string> = {}
  const notes: string[] = []
  let server: Started | undefined
  try {
    server = await start(args, env, !onPostgres)
    figures.first_start_ms = Math.round(server.startMs)
    readings.push(
      await read(
        server,
        probeFile,
        'first start',
        onPostgres ? 'a new database: migrations' : 'a new data folder: the database created, migrated, the demo seeded',
      ),
    )
    await new Promise((r) => setTimeout(r, options.restMs))
    readings.push(await read(server, probeFile, `at rest (${options.restMs / 1000} s later)`))

    resetPeakRss(server.pid)
    const headers: Record<string, string> = {}
    const paths = ['/openapi.json', '/docs/', '/docs/static/swagger-ui-bundle.js', '/scan/', '/iam/v1/health']
    if (!onPostgres) {
      const demo = parseBanner(server.output())
      const pasted = runBannerLines(demo.commands)
      figures.banner_lines = demo.commands.length
      if (!pasted.ok) notes.push(`a banner line failed:\n${pasted.output}`)
      headers.authorization = `Basic ${Buffer.from(`${demo.sellerId}:${demo.apiKey}`).toString('base64')}`
      paths.unshift(
        '/stf/v1/events',
        demo.seatMapPath,
        `/stf/v1/orders/${demo.orderId}`,
        `/stf/v1/orders/${demo.orderId}/tickets.pdf`,
        `/stf/v1/orders/${demo.orderId}/tickets/${demo.ticket}/qr.png`,
      )
    }
    const failed = await unanswered(server.baseUrl, paths, headers)
    if (failed.length > 0) notes.push(`pages not answered 200: ${failed.join(', ')}`)
    // As a person goes through them (one after the other), then as ten at once would.
    for (const connections of [1, 10]) {
      if (connections > 1) resetPeakRss(server.pid)
      const pages = await readPages(server.baseUrl, paths, headers, options.requests, connections)
      if (pages.bad > 0) notes.push(`reads over ${connections} connections: ${pages.bad} errors, timeouts or non-2xx answers`)
      const reads = `${pages.requests} reads of its ${paths.length} pages over ${connections === 1 ? 'one connection' : `${connections} connections`}`
      readings.push(
        connections === 1
          ? await read(server, probeFile, onPostgres ? 'reads' : 'demo', `${onPostgres ? '' : `the banner's ${figures.banner_lines} lines, then `}${reads}`)
          : await read(server, probeFile, `${onPostgres ? 'reads' : 'demo pages'}, ${connections} at once`, reads),
      )
    }

    await server.stop()
    server = await start(args, env, false)
    figures.restart_ms = Math.round(server.startMs)
    readings.push(await read(server, probeFile, 'restart', 'the same database, nothing to create or migrate'))
    await new Promise((r) => setTimeout(r, options.restMs))
    readings.push(await read(server, probeFile, `restart, at rest (${options.restMs / 1000} s later)`))
  } finally {
    await server?.stop()
    await database?.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  return { command: shown, readings, figures, notes }
}
