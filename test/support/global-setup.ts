import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    runId: string
  }
}

/** Names this run, so that the PostgreSQL databases its workers create can be dropped after it. */
export default function setup(project: TestProject) {
  const runId = randomBytes(4).toString('hex')
  project.provide('runId', runId)
  return async () => {
    const url = process.env.TEST_DATABASE_URL
    if (!url) return
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [`bo_test_${runId}_%`])
      for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`)
    } finally {
      await client.end()
    }
  }
}
