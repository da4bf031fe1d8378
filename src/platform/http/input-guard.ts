import type { FastifyInstance } from 'fastify'
import { AppError, type ErrorDetail } from '../errors.js'

/**
 * A NUL character cannot be stored in PostgreSQL text (the query fails), and a lone UTF-16
 * surrogate has no UTF-8 form (the driver would silently store U+FFFD instead). Both are
 * refused wherever they appear in a request, before any handler or query sees them.
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates'
// Deeper than any schema goes; a body nested further is refused by its schema anyway.
const MAX_DEPTH = 64

function findUnstorable(value: unknown, path: string[], depth = 0): string[] | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : undefined
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i], [...path, String(i)], depth + 1)
      if (found) return found
    }
    return undefined
  }
  for (const [key, item] of Object.entries(value)) {
    if (UNSTORABLE.test(key)) return [...path, key]
    const found = findUnstorable(item, [...path, key], depth + 1)
    if (found) return found
  }
  return undefined
}

const refuse = (path: string[]): AppError => {
  const details: ErrorDetail[] = [{ path: path.join('.'), message: MESSAGE }]
  return new AppError('validation_error', { details })
}

/**
 * Refuses unstorable strings in headers, path and query (on arrival, before authentication
 * reads them) and in the body (once parsed, before validation): 400 `validation_error`.
 * Register before the route groups.
 */
export function registerInputGuard(app: FastifyInstance) {
  app.addHook('onRequest', async (request) => {
    const found =
      findUnstorable(request.params, ['params']) ?? findUnstorable(request.query, ['querystring']) ?? findUnstorable(request.headers, ['headers'])
    if (found) throw refuse(found)
  })
  app.addHook('preValidation', async (request) => {
    const found = findUnstorable(request.body, [])
    if (found) throw refuse(found.length ? found : ['body'])
  })
}
