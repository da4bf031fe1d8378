import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { freePort } from './smtp-sink.js'

const run = promisify(execFile)

/** The newest PostgreSQL server binaries installed the Debian way, if any. */
function binDir(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((x, y) => Number(y) - Number(x))
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined
}

const RUNUSER = ['/usr/sbin/runuser', '/sbin/runuser'].find((p) => existsSync(p))

/**
 * A PostgreSQL cluster of its own, in a temporary directory on a free port of 127.0.0.1, that a
 * test may crash (kill -9) and restart without touching the shared server. PostgreSQL refuses
 * to run as root, so its commands run as the `postgres` user.
 */
export class PgCluster {
  private constructor(
    private readonly bin: string,
    readonly dir: string,
    readonly port: number,
  ) {}

  /** Why a cluster cannot be made here, or undefined when it can. */
  static unavailable(): string | undefined {
    if (process.getuid?.() !== 0) return 'needs root (to run PostgreSQL as the postgres user)'
    if (!binDir()) return 'no PostgreSQL server binaries under /usr/lib/postgresql'
    if (!RUNUSER) return 'no runuser'
    return undefined
  }

  static async create(): Promise<PgCluster> {
    const bin = binDir()!
    const { stdout } = await run('id', ['-u', 'postgres'])
    const uid = Number(stdout.trim())
    const dir = mkdtempSync(path.join(tmpdir(), 'boxoffice-pg-'))
    chownSync(dir, uid, -1)
    const cluster = new PgCluster(bin, dir, await freePort())
    await cluster.as('initdb', ['-D', cluster.data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'])
    await cluster.start()
    return cluster
  }

  private get data() {
    return path.join(this.dir, 'data')
  }

  private as(command: string, args: string[]) {
    return run(RUNUSER!, ['-u', 'postgres', '--', path.join(this.bin, command), ...args], { timeout: 60_000 })
  }

  url(database = 'postgres') {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`
  }

  /** Starts the server (after a crash: with crash recovery) and waits until it accepts connections. */
  async start() {
    await this.as('pg_ctl', [
      '-D',
      this.data,
      '-l',
      path.join(this.dir, 'log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on -c max_connections=60`,
      'start',
    ])
  }

  /** Creates a database and answers its URL. */
  async createDatabase(name: string) {
    const client = new pg.Client({ connectionString: this.url() })
    await client.connect()
    try {
      await client.query(`create database "${name}"`)
    } finally {
      await client.end()
    }
    return this.url(name)
  }

  /** The postmaster's pid and those of its children (backends and auxiliary processes). */
  private async processes(): Promise<number[]> {
    const pidFile = path.join(this.data, 'postmaster.pid')
    if (!existsSync(pidFile)) return []
    const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0])
    const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(postmaster)]).catch(() => ({ stdout: '' }))
    return [
      postmaster,
      ...stdout
        .split('\n')
        .map((l) => Number(l.trim()))
        .filter((n) => n > 0),
    ]
  }

  /**
   * kill -9 of the whole server, postmaster first (so that it restarts nothing), as a crash
   * would leave it: whatever was not written to the WAL is gone. Answers the pids killed.
   */
  async kill9(): Promise<number[]> {
    const pids = await this.processes()
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    const deadline = Date.now() + 10_000
    while (pids.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    return pids
  }

  /** Stops the server at once if it runs and removes its files. */
  async destroy() {
    await this.as('pg_ctl', ['-D', this.data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined)
    await this.kill9()
    rmSync(this.dir, { recursive: true, force: true })
  }
}
