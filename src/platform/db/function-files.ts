import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import type { Db } from './database.js'
import ledger from './function-release.json' with { type: 'json' }

/**
 * Database functions are source code, not history: each is one file, `sql/<name>.sql` beside the
 * module that owns it (src/domain/inventory/sql/take_tickets.sql), holding its current
 * `CREATE OR REPLACE FUNCTION`. After the migrations, every file whose text changed since it was
 * last applied is applied again, like Flyway's repeatable migrations (`R__*.sql`); what was
 * applied is kept by file, SHA-256 and release in `schema_functions`. Migrations change tables (and
 * wired the triggers of the functions they once carried); they never carry a function body. A
 * trigger function added since wires its own triggers in its file (statementsOf). A change of a function's arguments or result
 * needs a migration that drops the old signature first: CREATE OR REPLACE cannot change them.
 * The changed files are applied in one transaction, in path order, without checking bodies.
 *
 * Releases: during a rolling deploy, replicas of the old build and of the new one start over the
 * same database, in any order. A changed file is applied only by a build whose release is at least
 * the one that applied it last, so an old replica restarting late never puts back the bodies the
 * new one applied; it keeps running against them (as it already runs against the new migrations)
 * and logs what it left. The release is a counter kept with the files' hashes in
 * function-release.json, which `npm run db:functions` advances whenever a file's text changes (a
 * test fails until it has). The newest migration cannot order builds: two builds with the same
 * migrations may differ in a body only, and migrations are renumbered when branches merge.
 */
export type FunctionFile = { file: string; sql: string; sha256: string }

/** The release of this build's function files (function-release.json). */
export const FUNCTION_RELEASE: number = ledger.release

/** The hashes the release was recorded with, by file: what `npm run db:functions` compares with. */
export const FUNCTION_RELEASE_FILES: Readonly<Record<string, string>> = ledger.files

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
 * A file's statements: its function, and for a trigger function the triggers it is wired by
 * (`CREATE OR REPLACE TRIGGER`, idempotent like the function), each after the marker migrations
 * use, `--> statement-breakpoint` (one statement a call: PGlite prepares what it runs).
 */
export const statementsOf = (text: string): string[] =>
  text
    .split('--> statement-breakpoint')
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0)

export type FunctionFilesApplied = {
  /** This build's release. */
  release: number
  /** Files applied now: new, or changed by this release or a later one. */
  applied: string[]
  /** Changed files left as they are, because a newer release applied them (`release` is its). */
  kept: { file: string; release: number }[]
}

/**
 * Applies the function files whose text is new or changed, unless a newer release applied them;
 * answers what it applied and what it kept. Run it where migrations run (under their lock on
 * PostgreSQL, so that replicas starting at once apply each change once).
 */
export async function applyFunctionFiles(
  db: Db,
  files: readonly FunctionFile[] = functionFiles(),
  release: number = FUNCTION_RELEASE,
): Promise<FunctionFilesApplied> {
  await db.execute(sql`create table if not exists schema_functions (
    file text primary key, sha256 text not null, applied_at timestamptz not null default now(), release integer)`)
  // Databases from before releases were recorded have no column yet: their rows count as release 0.
  await db.execute(sql`alter table schema_functions add column if not exists release integer`)
  const { rows } = await db.execute<{ file: string; sha256: string; release: number | null }>(sql`select file, sha256, release from schema_functions`)
  const applied = new Map(rows.map((row) => [row.file, { sha256: row.sha256, release: row.release ?? 0 }]))
  const changed: FunctionFile[] = []
  const kept: FunctionFilesApplied['kept'] = []
  // Same text, recorded by an older release: recorded as this one's, so that an older build whose
  // text differs (a change this release took back) cannot put it back either.
  const confirmed: string[] = []
  for (const f of files) {
    const before = applied.get(f.file)
    if (before === undefined) changed.push(f)
    else if (before.sha256 === f.sha256) {
      if (before.release < release) confirmed.push(f.file)
    } else if (before.release > release) kept.push({ file: f.file, release: before.release })
    else changed.push(f)
  }
  if (changed.length > 0 || confirmed.length > 0) {
    // All or none; and, as pg_dump does, bodies are not checked while they are created, so a file
    // may call a function of a file applied after it (inventory_standings calls sale_standing).
    await db.transaction(async (tx) => {
      await tx.execute(sql`set local check_function_bodies = off`)
      for (const f of changed) {
        for (const statement of statementsOf(f.sql)) await tx.execute(sql.raw(statement))
        await tx.execute(sql`insert into schema_functions (file, sha256, release) values (${f.file}, ${f.sha256}, ${release})
          on conflict (file) do update set sha256 = excluded.sha256, release = excluded.release, applied_at = now()`)
      }
      for (const file of confirmed) await tx.execute(sql`update schema_functions set release = ${release} where file = ${file}`)
    })
  }
  return { release, applied: changed.map((f) => f.file), kept }
}
