import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import type { Db } from './database.js'

/**
 * Database functions are source code, not history: each is one file, `sql/<name>.sql` beside the
 * module that owns it (src/domain/inventory/sql/take_tickets.sql), holding its current
 * `CREATE OR REPLACE FUNCTION`. After the migrations, every file whose text changed since it was
 * last applied is applied again, like Flyway's repeatable migrations (`R__*.sql`); what was
 * applied is kept by file and SHA-256 in `schema_functions`. Migrations change tables (and wire
 * triggers); they never carry a function body. A change of a function's arguments or result
 * needs a migration that drops the old signature first: CREATE OR REPLACE cannot change them.
 * The changed files are applied in one transaction, in path order, without checking bodies.
 */
export type FunctionFile = { file: string; sql: string; sha256: string }

/** The source tree (src/ here, dist/ in the image): this module is platform/db/ of it. */
const SOURCE_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Every `sql/*.sql` below the source tree, by path (so in the same order everywhere). */
export function functionFiles(root: string = SOURCE_ROOT): FunctionFile[] {
  const entries = readdirSync(root, { recursive: true, encoding: 'utf8' })
  return entries
    .filter((entry) => path.basename(path.dirname(entry)) === 'sql' && entry.endsWith('.sql'))
    .map((entry) => entry.split(path.sep).join('/'))
    .sort()
    .map((file) => {
      const sql = readFileSync(path.join(root, file), 'utf8')
      return { file, sql, sha256: createHash('sha256').update(sql).digest('hex') }
    })
}

/**
 * Applies the function files whose text is new or changed; answers the files applied. Run it
 * where migrations run (under their lock on PostgreSQL, so that replicas starting at once apply
 * each change once).
 */
export async function applyFunctionFiles(db: Db, files: readonly FunctionFile[] = functionFiles()): Promise<string[]> {
  await db.execute(sql`create table if not exists schema_functions (
    file text primary key, sha256 text not null, applied_at timestamptz not null default now())`)
  const { rows } = await db.execute<{ file: string; sha256: string }>(sql`select file, sha256 from schema_functions`)
  const applied = new Map(rows.map((row) => [row.file, row.sha256]))
  const changed = files.filter((f) => applied.get(f.file) !== f.sha256)
  if (changed.length === 0) return []
  // All or none; and, as pg_dump does, bodies are not checked while they are created, so a file
  // may call a function of a file applied after it (inventory_standings calls sale_standing).
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local check_function_bodies = off`)
    for (const f of changed) {
      await tx.execute(sql.raw(f.sql))
      await tx.execute(sql`insert into schema_functions (file, sha256) values (${f.file}, ${f.sha256})
        on conflict (file) do update set sha256 = excluded.sha256, applied_at = now()`)
    }
  })
  return changed.map((f) => f.file)
}
