import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import type { TestSeller } from '../factories/sellers.js'

/** POSTs JSON to `/stf/v1/auth/<path>` with the seller's Basic credentials. */
export const postAuth = (app: FastifyInstance, seller: TestSeller, path: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/stf/v1/auth/${path}`, headers: { ...seller.auth, ...headers }, payload: payload as Record<string, unknown> })

export const getMe = (app: FastifyInstance, headers: Record<string, string>) => app.inject({ method: 'GET', url: '/stf/v1/me', headers })

/** The error envelope without its per-request trace id, to compare two answers. */
export function errorBody(res: LightMyRequestResponse) {
  const { trace_id: traceId, ...rest } = res.json() as { trace_id: string }
  expect(traceId).toBe(res.headers['x-trace-id'])
  return rest
}

export function expectError(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.json()).toMatchObject({ code, trace_id: res.headers['x-trace-id'] })
}

/** The token of a `{storefront_url}/<page>?token=` link in an email, checking the link's base. */
export function linkToken(mail: string, storefrontUrl: string, page: string): string {
  const match = new RegExp(`${storefrontUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/${page}\\?token=([A-Za-z0-9_%-]+)`).exec(mail)
  if (!match) throw new Error(`no ${page} link to ${storefrontUrl} in:\n${mail}`)
  return decodeURIComponent(match[1]!)
}
