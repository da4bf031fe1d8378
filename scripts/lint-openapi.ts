/**
 * `npm run lint:openapi`: builds the app on a throwaway embedded database, writes the OpenAPI
 * document it serves to a temporary file and lints that with Redocly's recommended rules.
 * Exits with Redocly's status: 1 on any error (warnings are printed, and pass).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/platform/config.js'

const dir = mkdtempSync(path.join(tmpdir(), 'boxoffice-openapi-'))
let status = 1
try {
  // Only what the document depends on: no DATABASE_URL, REDIS_URL or SMTP from the environment.
  const config = loadConfig({ DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'silent', SEED_DEMO: 'false', PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL })
  const app = await buildApp({ config, startWorkers: false })
  let document: string
  try {
    await app.ready()
    document = JSON.stringify(app.swagger(), null, 2)
  } finally {
    await app.close()
  }
  const file = path.join(dir, 'openapi.json')
  writeFileSync(file, document)
  const lint = spawnSync('redocly', ['lint', file, '--extends=recommended'], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  })
  if (lint.error) throw lint.error
  status = lint.status ?? 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
process.exit(status)
