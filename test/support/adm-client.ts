import type { FastifyInstance, InjectOptions } from 'fastify'

/** Calls `/adm/v1` with a member of staff's headers (or none: `{}`). */
export function admClient(app: FastifyInstance, headers: Record<string, string>) {
  const call = (method: InjectOptions['method'], url: string, payload?: unknown) =>
    app.inject({ method, url: `/adm/v1${url}`, headers, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) })
  return {
    get: (url: string) => call('GET', url),
    post: (url: string, payload?: unknown) => call('POST', url, payload),
    put: (url: string, payload?: unknown) => call('PUT', url, payload),
    delete: (url: string) => call('DELETE', url),
  }
}

export type AdmClient = ReturnType<typeof admClient>
