import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { TEST_JWT_SECRET, TEST_TICKET_KEYS_SECRET } from '../build-app.js'
import { createScratchDatabase } from './database.js'
import { eventually, freePort } from './smtp-sink.js'

export type ServerProcess = {
  child: ChildProcess
  port: number
  baseUrl: string
  output: () => string
  exited: Promise<number | null>
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

export type StartServerOptions = {
  databaseUrl?: string
  /** How long it may take to listen (default 60 s): a start that seeds the demo does that first. */
  startWithinMs?: number
  /** Node's arguments (default `--import tsx src/server.ts`, the sources through tsx). */
  args?: string[]
}

/**
 * Starts `src/server.ts` as its own process, the way `npm start` does: over a fresh
 * PostgreSQL database when `TEST_DATABASE_URL` is set, else an embedded one in a temp dir.
 */
export async function startServerProcess(env: Record<string, string> = {}, options: StartServerOptions = {}): Promise<ServerProcess> {
  const port = await freePort()
  const databaseUrl = options.databaseUrl ?? (process.env.TEST_DATABASE_URL ? await createScratchDatabase(process.env.TEST_DATABASE_URL) : undefined)
  const child = spawn(process.execPath, options.args ?? ['--import', 'tsx', 'src/server.ts'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'boxoffice-server-')),
      JWT_SECRET: TEST_JWT_SECRET,
      TICKET_KEYS_SECRET: TEST_TICKET_KEYS_SECRET,
      LOG_LEVEL: 'info',
      SEED_DEMO: 'false',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  let gone = false
  void exited.then(() => (gone = true))
  // Listening shows in the log at level info; at quieter levels, an answer on the port tells.
  const answers = () =>
    fetch(`http://127.0.0.1:${port}/iam/v1/info`).then(
      () => true,
      () => false,
    )
  await eventually(async () => gone || output.includes('Server listening') || (await answers()), options.startWithinMs ?? 60_000, 100)
  if (gone) throw new Error(`server exited during start:\n${output}`)
  return {
    child,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (!gone) child.kill(signal)
      return exited
    },
  }
}
