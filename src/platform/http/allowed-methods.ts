import type { FastifyInstance } from 'fastify'

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * A route path (`/stf/v1/events/:id`, `/docs/*`) as a pattern over raw request paths: a
 * parameter is one segment (never an empty one), a wildcard the rest.
 */
function patternOf(url: string): RegExp {
  const body = url
    .split(/(:[A-Za-z0-9_]+|\*)/)
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : escapeRegExp(part)))
    .join('')
  return new RegExp(`^${body}$`)
}

/**
 * The methods of every route, collected as routes are added (register before any route),
 * so that a request the router did not match can be told apart: an unknown path (404) or a
 * known path with another method (405 with `Allow`). `allowedFor(path)` answers the methods
 * of that path, sorted, or an empty list for an unknown path.
 *
 * A path that only a CORS preflight route (`OPTIONS *`) matches is unknown: those wildcards
 * cover every path of their group.
 */
export function collectAllowedMethods(app: FastifyInstance) {
  const routes: { pattern: RegExp; methods: string[] }[] = []
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase())
    routes.push({ pattern: patternOf(route.url), methods })
  })
  return {
    allowedFor(path: string): string[] {
      const allowed = new Set<string>()
      for (const route of routes) if (route.pattern.test(path)) for (const method of route.methods) allowed.add(method)
      if ([...allowed].every((method) => method === 'OPTIONS')) return []
      return [...allowed].sort()
    },
  }
}
