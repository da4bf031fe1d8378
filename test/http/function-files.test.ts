import { readdirSync, readFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { applyFunctionFiles, functionFiles, type FunctionFile } from '../../src/platform/db/function-files.js'
import { testDatabase } from '../support/database.js'

const probe = (answer: number): FunctionFile => {
  const text = `CREATE OR REPLACE FUNCTION boxoffice_probe() RETURNS integer LANGUAGE sql AS $$ SELECT ${answer} $$;`
  return { file: 'test/sql/boxoffice_probe.sql', sql: text, sha256: `probe-${answer}` }
}

afterAll(async () => {
  const { db } = await testDatabase()
  await db.execute(sql`drop function if exists boxoffice_probe()`)
  await db.execute(sql`delete from schema_functions where file = 'test/sql/boxoffice_probe.sql'`)
})

/** Issue 30: database functions are one current file each, re-applied when their text changes. */
describe('database function files', () => {
  it('are found beside the modules that own them, one function each', () => {
    const files = functionFiles().map((f) => f.file)
    expect(files).toEqual([
      'domain/catalog/sql/announce_catalogue_changed.sql',
      'domain/inventory/sql/announce_tickets_freed.sql',
      'domain/inventory/sql/basket_items_set_held_until.sql',
      'domain/inventory/sql/baskets_move_holds.sql',
      'domain/inventory/sql/inventory_standings.sql',
      'domain/inventory/sql/sale_standing.sql',
      'domain/inventory/sql/take_tickets.sql',
      'domain/inventory/sql/tickets_available.sql',
      'domain/inventory/sql/tickets_held.sql',
      'domain/sellers/sql/seller_today.sql',
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
    const answer = async () => Number((await db.execute<{ n: number }>(sql`select boxoffice_probe() as n`)).rows[0]!.n)
    expect(await applyFunctionFiles(db, [probe(1)])).toEqual(['test/sql/boxoffice_probe.sql'])
    expect(await answer()).toBe(1)
    expect(await applyFunctionFiles(db, [probe(1)])).toEqual([])
    expect(await applyFunctionFiles(db, [probe(2)])).toEqual(['test/sql/boxoffice_probe.sql'])
    expect(await answer()).toBe(2)
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
