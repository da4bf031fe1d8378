import type { FastifyInstance } from 'fastify'
import { AppError, type ErrorDetail } from '../errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's body schema itself refuses every unstorable string, where it can answer for
     * the part that holds it (a batch of scans answers one scan `invalid_scan`, docs/door.md).
     */
    bodyStringsBySchema?: boolean
  }
}

const MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates'
// Deeper than any schema goes; a body nested further is refused by its schema anyway.
const MAX_DEPTH = 64

/**
 * A NUL character cannot be stored in PostgreSQL text (the query fails), and a lone UTF-16
 * surrogate has no UTF-8 form (the driver would silently store U+FFFD instead). Both are
 * refused wherever they appear in a request, before any handler or query sees them.
 * Both checks are native scans: this runs over every header, parameter and body string.
 */
const unstorable = (text: string) => text.includes('\u0000') || !text.isWellFormed()

/** The path to the first unstorable string or key in `value` (empty for `value` itself), else undefined. */
function findUnstorable(value: unknown, depth = 0): string[] | undefined {
  if (typeof value === 'string') return unstorable(value) ? [] : undefined
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i], depth + 1)
      if (found) return [String(i), ...found]
    }
    return undefined
  }
  for (const key of Object.keys(value)) {
    if (unstorable(key)) return [key]
    const found = findUnstorable((value as Record<string, unknown>)[key], depth + 1)
    if (found) return [key, ...found]
  }
  return undefined
}

/** The same, with the path starting at the part of the request that holds it. */
const foundIn = (part: string, value: unknown): string[] | undefined => {
  const found = findUnstorable(value)
  return found && [part, ...found]
}

const refuse = (path: string[]): AppError => {
  const details: ErrorDetail[] = [{ path: path.join('.'), message: MESSAGE }]
  return new AppError('validation_error', { details })
}

/**
 * Refuses unstorable strings in headers, path and query (on arrival, before authentication
 * reads them) and in the body (once parsed, before validation): 400 `validation_error`.
 * Register before the route groups. Callback hooks: they run on every request, and cost no promise.
 */
export function registerInputGuard(app: FastifyInstance) {
  app.addHook('onRequest', (request, _reply, done) => {
    const found = foundIn('params', request.params) ?? foundIn('querystring', request.query) ?? foundIn('headers', request.headers)
    done(found && refuse(found))
  })
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.routeOptions.config.bodyStringsBySchema) return done()
    const found = findUnstorable(request.body)
    done(found && refuse(found.length ? found : ['body']))
  })
}
