import type { RouteOptions } from 'fastify'

type LifecycleHook = 'onRequest' | 'onSend' | 'onResponse' | 'onRequestAbort'

/**
 * Adds a hook of one route's own (it runs after those of the route's scopes), for a hook that
 * concerns only the routes configured for it: the other routes do not pass through it at all.
 * Call it from an `onRoute` hook. The options' arrays are replaced, never changed: a GET route's
 * HEAD twin was copied from the same options.
 */
export function addRouteHook<K extends LifecycleHook>(
  route: RouteOptions,
  name: K,
  hook: NonNullable<RouteOptions[K]> extends infer H ? (H extends readonly unknown[] ? H[number] : H) : never,
) {
  const current = route[name] as unknown
  const hooks = current === undefined ? [] : Array.isArray(current) ? current : [current]
  ;(route as Record<LifecycleHook, unknown>)[name] = [...hooks, hook]
}
