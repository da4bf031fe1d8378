import { count, eq } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import { seedExportTickets } from '../../bench/server/seed-exports.js'
import { exportChunks, exportsTable } from '../../src/domain/reports/exports.table.js'
import { createTestSeller } from '../factories/sellers.js'
import { callServer, freshDatabase, openFixtures, startServer, type Fixtures } from '../support/live-server.js'
import type { ServerProcess } from '../support/server-process.js'
import { eventually } from '../support/smtp-sink.js'
import { createStaff } from '../support/staff.js'

/**
 * An export whose server process is killed while it writes (docs/exports.md): the next process's
 * sweep ends it `failed` once its heartbeat is older than EXPORT_STALE_SECONDS, its pieces are
 * deleted and its file answers 410. A truncated file is never marked done.
 */
let servers: ServerProcess[] = []
let fixtures: Fixtures | undefined
afterEach(async () => {
  await fixtures?.close()
  for (const server of servers) await server.stop('SIGKILL')
  servers = []
  fixtures = undefined
})

describe('an export killed midway', () => {
  it('ends failed after the sweep, its file 410 export_failed, never done', async () => {
    const databaseUrl = await freshDatabase()
    fixtures = await openFixtures(databaseUrl)
    const { app } = fixtures
    const { seller } = await createTestSeller(app)
    const staff = await createStaff(app, { permissions: ['adm.orders.read'] })
    // Big enough to take a moment: the kill lands while pieces are being written.
    await seedExportTickets(app.db, { sellerId: seller.id, tickets: 200_000 })
    const headers = staff.auth

    const first = await startServer(databaseUrl)
    servers.push(first)
    const created = await callServer(first.baseUrl, 'POST', `/adm/v1/sellers/${seller.id}/exports`, { headers, body: { type: 'tickets', format: 'csv' } })
    expect(created.status, JSON.stringify(created.body)).toBe(202)
    const id = created.body.id as string
    const pieces = async () => Number((await app.db.select({ n: count() }).from(exportChunks).where(eq(exportChunks.exportId, id)))[0]!.n)
    const statusOf = async () => (await app.db.select({ status: exportsTable.status }).from(exportsTable).where(eq(exportsTable.id, id)))[0]!.status
    // Midway: some pieces written, not done.
    await eventually(async () => (await pieces()) > 0, 30_000, 5)
    await first.stop('SIGKILL')
    expect(await statusOf()).toBe('running')
    expect(await pieces()).toBeGreaterThan(0)

    // Another process: its sweep finds the heartbeat stale and fails the export.
    const second = await startServer(databaseUrl, { EXPORT_STALE_SECONDS: '2', OUTBOX_POLL_MS: '200' })
    servers.push(second)
    const running = await callServer(second.baseUrl, 'GET', `/adm/v1/exports/${id}`, { headers })
    expect(running.status).toBe(200)
    expect(running.body.status).toBe('running')
    expect((await callServer(second.baseUrl, 'GET', `/adm/v1/exports/${id}/file`, { headers })).body.code).toBe('export_running')
    await eventually(async () => (await callServer(second.baseUrl, 'GET', `/adm/v1/exports/${id}`, { headers })).body?.status !== 'running', 30_000, 100)
    const ended = await callServer(second.baseUrl, 'GET', `/adm/v1/exports/${id}`, { headers })
    expect(ended.body).toMatchObject({ id, status: 'failed', rows: null, sha256: null, expires_at: null })
    const file = await callServer(second.baseUrl, 'GET', `/adm/v1/exports/${id}/file`, { headers })
    expect(file.status).toBe(410)
    expect(file.body.code).toBe('export_failed')
    expect(await pieces()).toBe(0)

    // A new export on the live process is written whole.
    const again = await callServer(second.baseUrl, 'POST', `/adm/v1/sellers/${seller.id}/exports`, { headers, body: { type: 'orders', format: 'json' } })
    expect(again.status).toBe(202)
    await eventually(
      async () => (await callServer(second.baseUrl, 'GET', `/adm/v1/exports/${again.body.id}`, { headers })).body?.status !== 'running',
      60_000,
      100,
    )
    const done = await callServer(second.baseUrl, 'GET', `/adm/v1/exports/${again.body.id}`, { headers })
    expect(done.body).toMatchObject({ status: 'done', rows: 20_000 })
  })
})
