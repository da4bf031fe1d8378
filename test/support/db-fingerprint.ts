import { sql } from 'drizzle-orm'
import type { Db } from '../../src/platform/db/database.js'
import { listTables } from './database.js'

/**
 * Columns written by reads, not by changes: `api_keys.last_used_at` and
 * `checkin_devices.last_seen_at` record that a key or a device was used (at most once a
 * minute), whatever the request then answers.
 */
const VOLATILE: Record<string, string[]> = { api_keys: ['last_used_at'], checkin_devices: ['last_seen_at'] }

let cached: { query: ReturnType<typeof sql.raw>; tables: string[] } | undefined

/**
 * A digest of every application table that changes whenever a row is inserted, updated or
 * deleted (row count and newest row version, `xmin`), and for tables with columns that reads
 * touch, of their content without those columns. PostgreSQL only. Locks (`FOR UPDATE`) and
 * rolled-back writes leave it as it was.
 */
export async function fingerprint(db: Db): Promise<string> {
  if (!cached) {
    const tables = await listTables(db)
    const parts = tables.map((t) => {
      if (!VOLATILE[t]) return `select '${t}' as t, count(*)::text || ':' || coalesce(max(xmin::text::bigint), 0)::text as h from "${t}"`
      const row = `(to_jsonb(x)${VOLATILE[t].map((c) => ` - '${c}'`).join('')})::text`
      return `select '${t}' as t, count(*)::text || ':' || coalesce(md5(string_agg(${row}, '|' order by ${row})), '') as h from "${t}" x`
    })
    cached = { tables, query: sql.raw(`select string_agg(t || '=' || h, ',' order by t) as digest from (${parts.join(' union all ')}) s`) }
  }
  const result = await db.execute<{ digest: string }>(cached.query)
  return String(result.rows[0]?.digest ?? '')
}
