import type { InjectOptions } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { DATE_PATTERN } from '../../src/platform/http/schemas.js'
import { useTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { expectError } from '../support/customer-auth.js'
import { fingerprint } from '../support/db-fingerprint.js'
import { asAdmin, type TestStaff } from '../support/staff.js'

const ctx = useTestApp()

let seller: TestSeller
let admin: TestStaff
let event: { id: string; slug: string; sellerId: string }

beforeAll(async () => {
  seller = await createTestSeller(ctx.app)
  admin = await asAdmin(ctx.app)
  event = await createTestEvent(ctx.app, seller.seller.id)
  await createTestInventory(ctx.app, event)
})

/** A 400 `validation_error` whose details name `path`, and a database left as it was. */
async function expectRefusedAt(request: InjectOptions, path: string) {
  const before = await fingerprint(ctx.app.db)
  const res = await ctx.app.inject(request)
  expectError(res, 400, 'validation_error')
  expect(res.json().details, res.body).toEqual(expect.arrayContaining([expect.objectContaining({ path, message: expect.stringContaining('1900-01-01') })]))
  expect(await fingerprint(ctx.app.db)).toBe(before)
}

describe('dates and instants outside 1900-01-01 .. 2199-12-31', () => {
  it('refuses a storefront event search from year 0 with 400 naming date_from, not a database error', async () => {
    await expectRefusedAt({ method: 'GET', url: '/stf/v1/events?date_from=0000-01-01', headers: seller.auth }, 'querystring.date_from')
    await expectRefusedAt({ method: 'GET', url: '/stf/v1/events?date_to=2200-01-01', headers: seller.auth }, 'querystring.date_to')
  })

  it('refuses availability up to or from year 9999 with 400 naming the parameter', async () => {
    await expectRefusedAt({ method: 'GET', url: `/stf/v1/events/${event.id}/availability?to=9999-12-20`, headers: seller.auth }, 'querystring.to')
    await expectRefusedAt({ method: 'GET', url: `/stf/v1/events/${event.id}/availability?from=9999-12-20`, headers: seller.auth }, 'querystring.from')
    await expectRefusedAt(
      { method: 'GET', url: `/stf/v1/events/${event.id}/availability?from=9999-12-01&to=9999-12-20`, headers: seller.auth },
      'querystring.from',
    )
  })

  it('refuses an inventory dated year 0 (create and update) with 400 naming date', async () => {
    await expectRefusedAt(
      {
        method: 'POST',
        url: `/adm/v1/events/${event.id}/inventories`,
        headers: admin.auth,
        payload: { date: '0000-01-01', name: 'Old', price: 100, capacity: 1 },
      },
      'date',
    )
    const inventory = await createTestInventory(ctx.app, event)
    await expectRefusedAt({ method: 'PUT', url: `/adm/v1/inventories/${inventory.id}`, headers: admin.auth, payload: { date: '1899-12-31' } }, 'date')
  })

  it('refuses a coupon starting in year 0 or ending after 2199 with 400 naming the field', async () => {
    const url = `/adm/v1/sellers/${seller.seller.id}/coupons`
    await expectRefusedAt(
      { method: 'POST', url, headers: admin.auth, payload: { code: 'YEARZERO', type: 'percent', value: 10, starts_at: '0000-01-01T00:00:00Z' } },
      'starts_at',
    )
    await expectRefusedAt(
      { method: 'POST', url, headers: admin.auth, payload: { code: 'YEARMAX', type: 'percent', value: 10, ends_at: '2200-01-01T00:00:00Z' } },
      'ends_at',
    )
    // An offset that puts the instant before 1900-01-01 (UTC) is outside too.
    await expectRefusedAt(
      { method: 'POST', url, headers: admin.auth, payload: { code: 'OFFSET', type: 'percent', value: 10, starts_at: '1900-01-01T00:00:00+01:00' } },
      'starts_at',
    )
    const coupon = await createTestCoupon(ctx.app, seller.seller.id)
    await expectRefusedAt({ method: 'PUT', url: `/adm/v1/coupons/${coupon.id}`, headers: admin.auth, payload: { ends_at: '9999-12-31T23:59:59Z' } }, 'ends_at')
  })

  it('accepts the edges themselves: 1900-01-01 and 2199-12-31', async () => {
    const list = await ctx.app.inject({ method: 'GET', url: '/stf/v1/events?date_from=1900-01-01&date_to=2199-12-31', headers: seller.auth })
    expect(list.statusCode, list.body).toBe(200)
    expect(list.json().data.map((e: { id: string }) => e.id)).toContain(event.id)

    const availability = await ctx.app.inject({
      method: 'GET',
      url: `/stf/v1/events/${event.id}/availability?from=2199-12-01&to=2199-12-31`,
      headers: seller.auth,
    })
    expect(availability.statusCode, availability.body).toBe(200)
    const early = await ctx.app.inject({ method: 'GET', url: `/stf/v1/events/${event.id}/availability?from=1900-01-01`, headers: seller.auth })
    expect(early.statusCode, early.body).toBe(200)

    for (const date of ['1900-01-01', '2199-12-31']) {
      const created = await ctx.app.inject({
        method: 'POST',
        url: `/adm/v1/events/${event.id}/inventories`,
        headers: admin.auth,
        payload: { date, name: `Edge ${date}`, price: 100, capacity: 1 },
      })
      expect(created.statusCode, created.body).toBe(201)
      expect(created.json().date).toBe(date)
    }
    const late = await ctx.app.inject({ method: 'GET', url: `/stf/v1/events/${event.id}/availability?from=2199-12-31`, headers: seller.auth })
    expect(late.statusCode, late.body).toBe(200)
    expect(late.json().data.map((d: { date: string }) => d.date)).toEqual(['2199-12-31'])

    const coupon = await ctx.app.inject({
      method: 'POST',
      url: `/adm/v1/sellers/${seller.seller.id}/coupons`,
      headers: admin.auth,
      payload: { code: 'EDGES', type: 'fixed', value: 100, starts_at: '1900-01-01T00:00:00Z', ends_at: '2199-12-31T23:59:59.999Z' },
    })
    expect(coupon.statusCode, coupon.body).toBe(201)
    expect(coupon.json()).toMatchObject({ starts_at: '1900-01-01T00:00:00.000Z', ends_at: '2199-12-31T23:59:59.999Z' })
  })

  it('shows the bounds in the OpenAPI document', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const dateFrom = doc.paths['/stf/v1/events'].get.parameters.find((p: { name: string }) => p.name === 'date_from')
    expect(dateFrom.schema).toMatchObject({
      type: 'string',
      format: 'date',
      pattern: DATE_PATTERN,
      'x-formatMinimum': '1900-01-01',
      'x-formatMaximum': '2199-12-31',
    })
    const startsAt = doc.paths['/adm/v1/sellers/{id}/coupons'].post.requestBody.content['application/json'].schema.properties.starts_at
    expect(JSON.stringify(startsAt)).toContain('"x-formatMinimum":"1900-01-01T00:00:00Z"')
    expect(JSON.stringify(startsAt)).toContain('"x-formatMaximum":"2199-12-31T23:59:59.999Z"')
  })
})
