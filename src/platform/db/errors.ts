/**
 * Classifies driver errors. drizzle wraps them (DrizzleQueryError, whose message holds the
 * SQL), so the original is found by walking `cause`.
 */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '57014', // query_canceled: statement_timeout
  '55P03', // lock_not_available: lock_timeout
])
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'])
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error',
  'Cannot use a pool after calling end',
]

function* causes(error: unknown): Generator<Record<string, unknown>> {
  let current: unknown = error
  for (let depth = 0; depth < 8 && current && typeof current === 'object'; depth++) {
    yield current as Record<string, unknown>
    current = (current as { cause?: unknown }).cause
  }
}

/** The SQLSTATE of a database error, if any (e.g. '23505' unique_violation). */
export function sqlState(error: unknown): string | undefined {
  for (const e of causes(error)) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code
  }
  return undefined
}

/** The DETAIL of a database error, if any. */
export function errorDetail(error: unknown): string | undefined {
  for (const e of causes(error)) {
    if (typeof e.detail === 'string') return e.detail
  }
  return undefined
}

/** The constraint a database error names, if any. */
export function constraintName(error: unknown): string | undefined {
  for (const e of causes(error)) {
    if (typeof e.constraint === 'string') return e.constraint
  }
  return undefined
}

export const isUniqueViolation = (error: unknown, constraint?: string) =>
  sqlState(error) === '23505' && (constraint === undefined || constraintName(error) === constraint)

/** True when the database could not be reached or did not answer in time. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of causes(error)) {
    const code = typeof e.code === 'string' ? e.code : ''
    if (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_NODE_CODES.has(code) || code.startsWith('08')) return true
    const message = typeof e.message === 'string' ? e.message : ''
    if (UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true
  }
  return false
}
