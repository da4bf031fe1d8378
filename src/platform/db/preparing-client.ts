import { createHash } from 'node:crypto'
import pg from 'pg'

/** Distinct statements named at most: beyond it (a runaway of texts) statements go unnamed. */
const MAX_NAMED_STATEMENTS = 2000

/**
 * The names of prepared statements, by text. Every statement the application sends is
 * parameterised, so the texts form a small set (one per query shape); a name is a digest of its
 * text, the same on every connection and in every process. Beyond MAX_NAMED_STATEMENTS texts (a
 * runaway) statements go unnamed.
 */
function statementNames(): (text: string) => string | undefined {
  const names = new Map<string, string>()
  return (text) => {
    const known = names.get(text)
    if (known !== undefined || names.size >= MAX_NAMED_STATEMENTS) return known
    const name = `s_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`
    names.set(text, name)
    return name
  }
}

type QueryConfigLike = { text?: unknown; name?: unknown; values?: unknown; submit?: unknown }

const hasParameters = (config: QueryConfigLike, values: unknown) =>
  (Array.isArray(values) && values.length > 0) || (Array.isArray(config.values) && config.values.length > 0)

/**
 * A node-postgres client class that sends each parameterised statement as a named prepared statement,
 * so PostgreSQL parses and plans it once per connection instead of on every call (the driver
 * keeps the names it has prepared per connection and prepares again on a new one). Statements
 * without parameters (BEGIN, COMMIT, LISTEN, health checks) go as they are.
 *
 * Not for a pooler that hands one session's statements to several server connections
 * (PgBouncer in transaction mode before 1.21): set DB_PREPARED_STATEMENTS=false there.
 * One class per pool: the names it keeps are that database's, not the process's.
 */
export function preparingClient(): typeof pg.Client {
  const statementName = statementNames()
  return class PreparingClient extends pg.Client {
    // node-postgres overloads query() many ways; this forwards whatever it was given.
    override query(config: unknown, values?: unknown, callback?: unknown): never {
      if (typeof config === 'object' && config !== null && !('submit' in config)) {
        const query = config as QueryConfigLike
        if (typeof query.text === 'string' && query.name === undefined && hasParameters(query, values)) {
          const name = statementName(query.text)
          if (name !== undefined) config = { ...query, name }
        }
      }
      return (super.query as (...args: unknown[]) => never)(config, values, callback)
    }
  }
}

/**
 * A node-postgres client that never names a statement, not even one the ORM prepares by name:
 * DB_PREPARED_STATEMENTS=false, for a pooler that cannot keep a session's prepared statements.
 */
export class UnpreparedClient extends pg.Client {
  override query(config: unknown, values?: unknown, callback?: unknown): never {
    if (typeof config === 'object' && config !== null && !('submit' in config) && (config as QueryConfigLike).name !== undefined) {
      config = { ...(config as QueryConfigLike), name: undefined }
    }
    return (super.query as (...args: unknown[]) => never)(config, values, callback)
  }
}
