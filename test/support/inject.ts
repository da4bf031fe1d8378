import type { FastifyInstance, InjectOptions } from 'fastify'

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/**
 * A terse client for one app: `const api = client(() => ctx.app)`, then
 * `api('POST', '/iam/v1/users', staff.auth, { ... })`.
 */
export function client(app: () => FastifyInstance) {
  return (method: Method, url: string, headers?: Record<string, string>, payload?: InjectOptions['payload']) =>
    app().inject({ method, url, ...(headers ? { headers } : {}), ...(payload === undefined ? {} : { payload }) })
}
