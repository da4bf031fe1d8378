import { readdirSync, readFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { applyFunctionFiles, FUNCTION_RELEASE, FUNCTION_RELEASE_FILES, functionFiles, type FunctionFile } from '../../src/platform/db/function-files.js'
import { buildApp } from '../../src/app.js'
import { openDatabase } from '../../src/platform/db/database.js'
import { testConfig } from '../build-app.js'
import { testDatabase, testDatabaseUrl, usesPostgres } from '../support/database.js'
import { captureLogs } from '../support/log-capture.js'

const PROBE = 'test/sql/boxoffice_probe.sql'

const probe = (answer: number): FunctionFile => {
  const text = `CREATE OR REPLACE FUNCTION boxoffice_probe() RETURNS integer LANGUAGE sql AS $$ SELECT ${answer} $$;`
  return { file: PROBE, sql: text, sha256: `probe-${answer}` }
}

async function probeAnswer(): Promise<number> {
  const { db } = await testDatabase()
  return Number((await db.execute<{ n: number }>(sql`select boxoffice_probe() as n`)).rows[0]!.n)
}

async function forgetProbe(): Promise<void> {
  const { db } = await testDatabase()
  await db.execute(sql`drop function if exists boxoffice_probe()`)
  await db.execute(sql`delete from schema_functions where file = ${PROBE}`)
}

afterAll(forgetProbe)

/** Issue 30: database functions are one current file each, re-applied when their text changes. */
describe('database function files', () => {
  it('are found beside the modules that own them, one function each', () => {
    const files = functionFiles().map((f) => f.file)
    expect(files).toEqual([
      'domain/catalog/sql/announce_catalogue_changed.sql',
      'domain/inventory/sql/announce_tickets_freed.sql',
      'domain/inventory/sql/basket_items_set_held_until.sql',
      'domain/inventory/sql/baskets_move_holds.sql',
      'domain/inventory/sql/inventory_seats_blocked.sql',
      'domain/inventory/sql/inventory_seats_fill.sql',
      'domain/inventory/sql/inventory_seats_sold.sql',
      'domain/inventory/sql/inventory_standings.sql',
      'domain/inventory/sql/sale_standing.sql',
      'domain/inventory/sql/seat_standings.sql',
      'domain/inventory/sql/seats_best_available.sql',
      'domain/inventory/sql/seats_held.sql',
      'domain/inventory/sql/seats_stranded.sql',
      'domain/inventory/sql/take_tickets.sql',
      'domain/inventory/sql/take_tickets_group.sql',
      'domain/inventory/sql/take_tickets_json.sql',
      'domain/inventory/sql/tickets_available.sql',
      'domain/inventory/sql/tickets_held.sql',
      'domain/payments/sql/transactions_append_only.sql',
      'domain/seating/sql/seats_json.sql',
      'domain/sellers/sql/seller_today.sql',
      'domain/waiting-list/sql/end_offer_hold.sql',
      'domain/waiting-list/sql/offer_lapsed.sql',
      'domain/waiting-list/sql/serve_waiting_list.sql',
      'domain/waiting-list/sql/tickets_queued.sql',
      'domain/waiting-list/sql/waiting_list_lock.sql',
      'domain/waiting-list/sql/waiting_list_nudge.sql',
    ])
    for (const f of functionFiles()) {
      const name = f.file.replace(/^.*\//, '').replace(/\.sql$/, '')
      expect(f.sql.match(/CREATE OR REPLACE FUNCTION (\w+)\(/g), f.file).toEqual([`CREATE OR REPLACE FUNCTION ${name}(`])
    }
  })

  it('are what the migrated database runs', async () => {
    const { db } = await testDatabase()
    for (const f of functionFiles()) {
      const name = f.file.replace(/^.*\//, '').replace(/\.sql$/, '')
      const body = f.sql.slice(f.sql.indexOf('$$') + 2, f.sql.lastIndexOf('$$'))
      const { rows } = await db.execute<{ src: string }>(sql`select prosrc as src from pg_proc where proname = ${name}`)
      expect(
        rows.map((r) => r.src),
        name,
      ).toEqual([body])
    }
  })

  it('are applied again when, and only when, their text changes', async () => {
    const { db } = await testDatabase()
    await forgetProbe()
    expect((await applyFunctionFiles(db, [probe(1)], 1)).applied).toEqual([PROBE])
    expect(await probeAnswer()).toBe(1)
    expect((await applyFunctionFiles(db, [probe(1)], 1)).applied).toEqual([])
    expect((await applyFunctionFiles(db, [probe(2)], 1)).applied).toEqual([PROBE])
    expect(await probeAnswer()).toBe(2)
  })

  it('are recorded with the release of the build that changed them last', () => {
    // When this fails, a sql/*.sql file changed: `npm run db:functions` advances the release.
    expect(
      Object.fromEntries(functionFiles().map((f) => [f.file, f.sha256])),
      `function files changed since release ${FUNCTION_RELEASE}: run npm run db:functions`,
    ).toEqual(FUNCTION_RELEASE_FILES)
  })

  it('are never replaced by an older release: a replica of the old build restarting during a rolling deploy', async () => {
    // Two checkouts over one database: release 7 has the old body, release 8 a new one.
    const { db } = await testDatabase()
    await forgetProbe()
    expect((await applyFunctionFiles(db, [probe(1)], 7)).applied).toEqual([PROBE])
    expect((await applyFunctionFiles(db, [probe(2)], 8)).applied).toEqual([PROBE])
    expect(await probeAnswer()).toBe(2)

    // The old replica restarts: it leaves the newer body, and says so.
    expect(await applyFunctionFiles(db, [probe(1)], 7)).toEqual({ release: 7, applied: [], kept: [{ file: PROBE, release: 8 }] })
    expect(await probeAnswer()).toBe(2)
    // The new one restarts: nothing to do.
    expect(await applyFunctionFiles(db, [probe(2)], 8)).toEqual({ release: 8, applied: [], kept: [] })
    // A later release takes over as before.
    expect((await applyFunctionFiles(db, [probe(3)], 9)).applied).toEqual([PROBE])
    expect(await probeAnswer()).toBe(3)
  })

  it('taken back by a release are not put back by the release before it', async () => {
    // Release 8 changed the body and release 9 took the change back: the text 9 finds is its own,
    // so it applies nothing, but 8 must not put its body back when it restarts.
    const { db } = await testDatabase()
    await forgetProbe()
    await applyFunctionFiles(db, [probe(1)], 7)
    await applyFunctionFiles(db, [probe(2)], 8)
    await db.execute(sql`update schema_functions set sha256 = 'probe-1', release = 7 where file = ${PROBE}`)
    await db.execute(sql.raw(probe(1).sql))
    expect((await applyFunctionFiles(db, [probe(1)], 9)).applied).toEqual([])
    expect((await applyFunctionFiles(db, [probe(2)], 8)).kept).toEqual([{ file: PROBE, release: 9 }])
    expect(await probeAnswer()).toBe(1)
  })

  it('recorded before releases were count as release 0, and the table gains the column', async () => {
    // A database whose schema_functions is (file, sha256, applied_at), as every build before
    // releases wrote it.
    const { db } = await testDatabase()
    await forgetProbe()
    await applyFunctionFiles(db, [probe(1)], 1)
    const before = await db.execute<{ file: string; release: number | null }>(sql`select file, release from schema_functions`)
    try {
      await db.execute(sql`alter table schema_functions drop column release`)
      expect(await applyFunctionFiles(db, [probe(2)], 1)).toEqual({ release: 1, applied: [PROBE], kept: [] })
      expect(await probeAnswer()).toBe(2)
      const { rows } = await db.execute<{ release: number | null }>(sql`select release from schema_functions where file = ${PROBE}`)
      expect(rows).toEqual([{ release: 1 }])
    } finally {
      for (const row of before.rows) await db.execute(sql`update schema_functions set release = ${row.release} where file = ${row.file}`)
    }
  })

  it('kept for a newer release are named in a warning when the app starts', async () => {
    // The app opens and migrates the database itself, as a replica does; a newer release has
    // applied another seller_today.
    const file = 'domain/sellers/sql/seller_today.sql'
    const env = usesPostgres() ? { DATABASE_URL: await testDatabaseUrl() } : {}
    const config = testConfig(env)
    const seeding = usesPostgres() ? await testDatabase() : await openDatabase({ dataDir: config.dataDir })
    const newer = FUNCTION_RELEASE + 1
    await seeding.migrate()
    await seeding.db.execute(sql`update schema_functions set sha256 = 'newer', release = ${newer} where file = ${file}`)
    if (!usesPostgres()) await seeding.close()
    const logs = captureLogs('info')
    try {
      const app = await buildApp({ config, logger: logs.logger, startWorkers: false })
      await app.close()
      const warnings = logs.lines.filter((line) => line.level === 40 && String(line.msg).startsWith('database functions kept'))
      expect(warnings.map((line) => [line.release, line.kept])).toEqual([[FUNCTION_RELEASE, [{ file, release: newer }]]])
    } finally {
      if (usesPostgres()) {
        const own = functionFiles().find((f) => f.file === file)!
        await seeding.db.execute(sql`update schema_functions set sha256 = ${own.sha256}, release = ${FUNCTION_RELEASE} where file = ${file}`)
      }
    }
  })

  it('of the sale rule are inlined into the statement that reads how inventories stand', async () => {
    // An SQL function the planner cannot inline is parsed and planned again at every call; inlined,
    // it is planned once with the statement. tickets_queued was not (a scalar function whose body
    // holds a subquery), several times per hold: migration 0027.
    const { db } = await testDatabase()
    const { rows } = await db.execute<{ 'QUERY PLAN': string }>(
      sql`explain (verbose, costs off) select * from inventory_standings(${randomUUID()}::uuid, array[${randomUUID()}::uuid], array[1], null, null, true)`,
    )
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n')
    expect(plan).toContain('inventories')
    for (const inlined of ['inventory_standings', 'tickets_held', 'tickets_available', 'tickets_queued', 'sale_standing']) {
      expect(plan, inlined).not.toContain(`${inlined}(`)
    }
  })

  it('are never carried by a migration again (0022 and later)', () => {
    const folder = new URL('../../migrations/', import.meta.url)
    const later = readdirSync(folder).filter((name) => /^\d{4}_.*\.sql$/.test(name) && Number(name.slice(0, 4)) >= 22)
    expect(later.length).toBeGreaterThan(0)
    for (const name of later) expect(readFileSync(new URL(name, folder), 'utf8'), name).not.toMatch(/CREATE (OR REPLACE )?FUNCTION/i)
  })
})
