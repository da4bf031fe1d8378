import { spawn } from 'node:child_process'
import { statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { startServerProcess } from '../support/server-process.js'

const root = path.resolve(import.meta.dirname, '../..')

/** Runs `src/server.ts` as `npm start` does, with only `env`, and answers its exit code and output. */
function start(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env } })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('exit', (code) => resolve({ code, output }))
  })
}

describe('starting with a wrong configuration', () => {
  it('exits 1 and names each bad variable, without a stack and without the secrets', async () => {
    const missing = await start({
      DATABASE_URL: 'postgres://boxoffice:s3cret-password@127.0.0.1:1/none',
      ADMIN_PASSWORD: 'a-password-without-its-email',
    })
    expect(missing.code).toBe(1)
    expect(missing.output).toContain('Invalid configuration')
    expect(missing.output).toContain('JWT_SECRET is required when DATABASE_URL is set')
    expect(missing.output).toContain('ADMIN_EMAIL')
    const malformed = await start({ PORT: 'eighty', METRICS_TOKEN: 'short' })
    expect(malformed.code).toBe(1)
    expect(malformed.output).toMatch(/PORT .*"eighty"/)
    expect(malformed.output).toContain('METRICS_TOKEN')
    for (const { output } of [missing, malformed]) {
      expect(output).not.toContain('s3cret-password')
      expect(output).not.toContain('a-password-without-its-email')
      expect(output).not.toContain('"short"')
      expect(output).not.toMatch(/\n\s+at /)
    }
  }, 60_000)
})

describe('npm start', () => {
  it('runs the server compiled into dist/ (compiling src/ when it changed), on the port it is given', async () => {
    const server = await startServerProcess({}, { args: ['scripts/start.mjs'], startWithinMs: 120_000 })
    try {
      expect((await fetch(`${server.baseUrl}/iam/v1/health`)).status).toBe(200)
      const doc = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as { servers: { url: string }[] }
      expect(doc.servers[0]!.url).toBe(server.baseUrl)
      // Compiled by this start or an earlier one, and not older than any source.
      const compiled = statSync(path.join(root, 'dist/.compiled')).mtimeMs
      expect(compiled).toBeGreaterThanOrEqual(statSync(path.join(root, 'src/server.ts')).mtimeMs)
      expect(statSync(path.join(root, 'dist/server.js')).isFile()).toBe(true)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  }, 150_000)
})
