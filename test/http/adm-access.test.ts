import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { gridPlan } from '../../src/domain/seating/grid-plan.js'
import { createTestAffiliate, createTestSeller } from '../factories/sellers.js'
import { createStaff } from '../support/staff.js'

const ctx = useTestApp()

type Route = { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; permission: string; body?: unknown }
let routes: Route[]

beforeAll(async () => {
  const { seller } = await createTestSeller(ctx.app)
  const event = await createTestEvent(ctx.app, seller.id)
  const inventory = await createTestInventory(ctx.app, event)
  const affiliate = await createTestAffiliate(ctx.app, seller.id)
  const s = `/sellers/${seller.id}`
  // Bodies that pass validation, so that only the permission decides.
  routes = [
    { method: 'POST', url: '/sellers', permission: 'adm.sellers.write', body: { name: 'N', storefront_url: 'https://n.example.com' } },
    { method: 'GET', url: '/sellers', permission: 'adm.sellers.read' },
    { method: 'GET', url: s, permission: 'adm.sellers.read' },
    { method: 'PUT', url: s, permission: 'adm.sellers.write', body: { name: 'Renamed' } },
    { method: 'POST', url: `${s}/api-keys`, permission: 'adm.sellers.write', body: {} },
    { method: 'GET', url: `${s}/api-keys`, permission: 'adm.sellers.write' },
    { method: 'DELETE', url: `${s}/api-keys/${randomUUID()}`, permission: 'adm.sellers.write' },
    { method: 'POST', url: `${s}/affiliates`, permission: 'adm.sellers.write', body: { code: `C${Date.now()}`, name: 'A' } },
    { method: 'GET', url: `${s}/affiliates`, permission: 'adm.sellers.read' },
    { method: 'PUT', url: `/affiliates/${affiliate.id}`, permission: 'adm.sellers.write', body: { name: 'A2' } },
    { method: 'DELETE', url: `/affiliates/${randomUUID()}`, permission: 'adm.sellers.write' },
    { method: 'POST', url: `${s}/events`, permission: 'adm.catalog.write', body: { title: 'E' } },
    { method: 'GET', url: `${s}/events`, permission: 'adm.catalog.read' },
    { method: 'GET', url: `/events/${event.id}`, permission: 'adm.catalog.read' },
    { method: 'PUT', url: `/events/${event.id}`, permission: 'adm.catalog.write', body: { description: 'D' } },
    {
      method: 'POST',
      url: `/events/${event.id}/inventories`,
      permission: 'adm.catalog.write',
      body: { date: '2030-01-01', name: 'I', price: 100, capacity: 10 },
    },
    { method: 'GET', url: `/events/${event.id}/inventories`, permission: 'adm.catalog.read' },
    { method: 'PUT', url: `/inventories/${inventory.id}`, permission: 'adm.catalog.write', body: { price: 200 } },
    { method: 'GET', url: `/inventories/${inventory.id}/seats`, permission: 'adm.catalog.read' },
    { method: 'POST', url: `/inventories/${randomUUID()}/seats/block`, permission: 'adm.catalog.write', body: { seats: ['A1'], blocked: true } },
    { method: 'POST', url: `${s}/seating-plans`, permission: 'adm.catalog.write', body: { name: 'Hall', plan: gridPlan({ rows: 2, seatsPerRow: 3 }) } },
    { method: 'GET', url: `${s}/seating-plans`, permission: 'adm.catalog.read' },
    { method: 'GET', url: `/seating-plans/${randomUUID()}`, permission: 'adm.catalog.read' },
    { method: 'DELETE', url: `/seating-plans/${randomUUID()}`, permission: 'adm.catalog.write' },
    { method: 'POST', url: `${s}/coupons`, permission: 'adm.catalog.write', body: { code: `K${Date.now()}`, type: 'percent', value: 5 } },
    { method: 'GET', url: `${s}/coupons`, permission: 'adm.catalog.read' },
    { method: 'PUT', url: `/coupons/${randomUUID()}`, permission: 'adm.catalog.write', body: { active: false } },
    { method: 'GET', url: `${s}/orders`, permission: 'adm.orders.read' },
    { method: 'GET', url: `/orders/${randomUUID()}`, permission: 'adm.orders.read' },
    { method: 'POST', url: `/orders/${randomUUID()}/cancel`, permission: 'adm.orders.write' },
    { method: 'POST', url: `/orders/${randomUUID()}/order-token`, permission: 'adm.orders.write' },
    { method: 'POST', url: `/orders/${randomUUID()}/tickets/ABCDEFGHIJKLMNOPQRSTUVWXYZ/void`, permission: 'adm.orders.write' },
    { method: 'PUT', url: '/tickets/ABCDEFGHIJKLMNOPQRSTUVWXYZ/holder', permission: 'adm.orders.write', body: { name: 'Holder' } },
    { method: 'POST', url: '/tickets/ABCDEFGHIJKLMNOPQRSTUVWXYZ/reissue', permission: 'adm.orders.write' },
    { method: 'POST', url: `/orders/${randomUUID()}/payments`, permission: 'adm.orders.write', body: { amount: 100, reference: 'R' } },
    { method: 'POST', url: `/orders/${randomUUID()}/refunds`, permission: 'adm.orders.write', body: { amount: 100, reason: 'Goodwill' } },
    { method: 'POST', url: `/refunds/${randomUUID()}/confirm`, permission: 'adm.orders.write', body: { reference: 'provider-1' } },
    { method: 'GET', url: `${s}/transactions`, permission: 'adm.orders.read' },
    { method: 'GET', url: `${s}/reports/sales`, permission: 'adm.orders.read' },
    { method: 'GET', url: `${s}/affiliates/${affiliate.code}/statement`, permission: 'adm.orders.read' },
    { method: 'POST', url: `${s}/exports`, permission: 'adm.orders.read', body: { type: 'orders', format: 'csv' } },
    { method: 'GET', url: `/exports/${randomUUID()}`, permission: 'adm.orders.read' },
    { method: 'GET', url: `/exports/${randomUUID()}/file`, permission: 'adm.orders.read' },
    // A public address written as such: accepted without a DNS lookup.
    { method: 'POST', url: `${s}/webhooks`, permission: 'adm.sellers.write', body: { url: 'https://93.184.215.14/hooks' } },
    { method: 'GET', url: `${s}/webhooks`, permission: 'adm.sellers.read' },
    { method: 'GET', url: `/webhooks/${randomUUID()}`, permission: 'adm.sellers.read' },
    { method: 'PUT', url: `/webhooks/${randomUUID()}`, permission: 'adm.sellers.write', body: { active: false } },
    { method: 'DELETE', url: `/webhooks/${randomUUID()}`, permission: 'adm.sellers.write' },
    { method: 'POST', url: `/webhooks/${randomUUID()}/rotate-secret`, permission: 'adm.sellers.write' },
    { method: 'POST', url: `/webhooks/${randomUUID()}/ping`, permission: 'adm.sellers.write' },
    { method: 'GET', url: `/webhooks/${randomUUID()}/deliveries`, permission: 'adm.sellers.read' },
    { method: 'POST', url: `${s}/devices`, permission: 'adm.checkin.write', body: { name: 'Gate' } },
    { method: 'GET', url: `${s}/devices`, permission: 'adm.checkin.read' },
    { method: 'GET', url: `/devices/${randomUUID()}`, permission: 'adm.checkin.read' },
    { method: 'POST', url: `/devices/${randomUUID()}/revoke`, permission: 'adm.checkin.write' },
    { method: 'GET', url: `/devices/${randomUUID()}/pairing.svg`, permission: 'adm.checkin.write' },
    { method: 'POST', url: `/events/${event.id}/checkin-lists`, permission: 'adm.checkin.write', body: { name: 'Gate' } },
    { method: 'GET', url: `/events/${event.id}/checkin-lists`, permission: 'adm.checkin.read' },
    { method: 'GET', url: `/checkin-lists/${randomUUID()}`, permission: 'adm.checkin.read' },
    { method: 'PUT', url: `/checkin-lists/${randomUUID()}`, permission: 'adm.checkin.write', body: { name: 'Gate' } },
    { method: 'DELETE', url: `/checkin-lists/${randomUUID()}`, permission: 'adm.checkin.write' },
    { method: 'GET', url: `/checkin-lists/${randomUUID()}/status`, permission: 'adm.checkin.read' },
    { method: 'GET', url: `/checkin-lists/${randomUUID()}/checkins`, permission: 'adm.checkin.read' },
    { method: 'GET', url: `${s}/ticket-keys`, permission: 'adm.checkin.read' },
    { method: 'POST', url: `${s}/ticket-keys/rotate`, permission: 'adm.checkin.write' },
    { method: 'POST', url: `${s}/ticket-keys/NOSUCHKID/retire`, permission: 'adm.checkin.write' },
    { method: 'GET', url: `/inventories/${randomUUID()}/waiting-list`, permission: 'adm.orders.read' },
    { method: 'PUT', url: `/waiting-list/${randomUUID()}`, permission: 'adm.orders.write', body: { priority: 1 } },
    { method: 'POST', url: `/waiting-list/${randomUUID()}/offer`, permission: 'adm.orders.write' },
    { method: 'POST', url: `/webhooks/${randomUUID()}/deliveries/${randomUUID()}/redeliver`, permission: 'adm.sellers.write' },
  ]
})

// One member of staff per set of permissions: argon2 makes each one slow to create.
const staffByPermissions = new Map<string, Promise<{ auth: Record<string, string> }>>()
const staffWith = (permissions: string[]) => {
  const key = [...permissions].sort().join(',')
  if (!staffByPermissions.has(key)) staffByPermissions.set(key, createStaff(ctx.app, { permissions }))
  return staffByPermissions.get(key)!
}

const call = (app: FastifyInstance, route: Route, headers: Record<string, string>) =>
  app.inject({ method: route.method, url: `/adm/v1${route.url}`, headers, ...(route.body === undefined ? {} : { payload: route.body as object }) })

describe('back-office access', () => {
  it('answers 401 unauthorized on every route without a Bearer token, or with one that is not valid', async () => {
    for (const route of routes) {
      for (const headers of [{}, { authorization: 'Bearer not-a-token' }, { authorization: 'Basic dXNlcjpwYXNz' }] as Record<string, string>[]) {
        const res = await call(ctx.app, route, headers)
        expect(res.statusCode, `${route.method} ${route.url} ${JSON.stringify(headers)}`).toBe(401)
        expect(res.json()).toMatchObject({ code: 'unauthorized', trace_id: res.headers['x-trace-id'] })
      }
    }
  })

  it('answers 403 forbidden on every route to staff holding every permission but the one it needs', async () => {
    const all = ['adm.sellers.read', 'adm.sellers.write', 'adm.catalog.read', 'adm.catalog.write', 'adm.orders.read', 'adm.orders.write']
    for (const route of routes) {
      const staff = await staffWith(all.filter((p) => p !== route.permission))
      const res = await call(ctx.app, route, staff.auth)
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(403)
      expect(res.json().code).toBe('forbidden')
    }
  })

  it('lets staff through with only the permission the route needs', async () => {
    for (const route of routes) {
      const staff = await staffWith([route.permission])
      const res = await call(ctx.app, route, staff.auth)
      // Unknown ids in some routes answer 404: past the guard all the same.
      expect([200, 201, 202, 204, 404], `${route.method} ${route.url}: ${res.body}`).toContain(res.statusCode)
    }
  })

  it('checks the permission before validating the request', async () => {
    const staff = await staffWith(['adm.sellers.read'])
    const res = await ctx.app.inject({ method: 'POST', url: '/adm/v1/sellers', headers: staff.auth, payload: { bogus: true } })
    expect(res.statusCode).toBe(403)
  })

  it('documents every back-office operation with a tag, a summary, the Bearer scheme and its error answers', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { tags?: string[]; summary?: string; security?: unknown[]; responses: Record<string, unknown> }>>
    }
    const operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/adm/v1/'))
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method} ${path}`, op })))
    expect(operations).toHaveLength(routes.length)
    for (const { name, op } of operations) {
      expect(op.tags, name).toEqual(['backoffice'])
      expect(op.summary, name).toBeTruthy()
      expect(op.security, name).toEqual([{ staffBearer: [] }])
      expect(Object.keys(op.responses), name).toEqual(expect.arrayContaining(['401', '403']))
    }
  })
})
