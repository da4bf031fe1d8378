import type { FastifyInstance } from 'fastify'
import { client } from './inject.js'

/** Calls `/adm/v1` with one member of staff's headers (or none: `{}`). */
export function admClient(app: FastifyInstance, headers: Record<string, string>) {
  const api = client(() => app)
  return {
    get: (url: string) => api('GET', `/adm/v1${url}`, headers),
    post: (url: string, payload?: object) => api('POST', `/adm/v1${url}`, headers, payload),
    put: (url: string, payload?: object) => api('PUT', `/adm/v1${url}`, headers, payload),
    delete: (url: string) => api('DELETE', `/adm/v1${url}`, headers),
  }
}

export type AdmClient = ReturnType<typeof admClient>
