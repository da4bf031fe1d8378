import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { expectError } from '../support/customer-auth.js'
import { asAdmin, type TestStaff } from '../support/staff.js'

const ctx = useTestApp()

let seller: TestSeller
let admin: TestStaff
let event: { id: string; slug: string; sellerId: string }
let inventory: { id: string }

beforeAll(async () => {
  seller = await createTestSeller(ctx.app)
  admin = await asAdmin(ctx.app)
  event = await createTestEvent(ctx.app, seller.seller.id, { slug: 'rock-in-rio-2030' })
  inventory = await createTestInventory(ctx.app, event)
})

describe('a known path asked with another method', () => {
  it('answers 405 method_not_allowed with Allow listing the methods of that path, HEAD with GET', async () => {
    const cases: [method: 'DELETE' | 'PUT' | 'POST' | 'PATCH', url: string, allow: string][] = [
      ['DELETE', '/stf/v1/events', 'GET, HEAD'],
      ['POST', `/stf/v1/events/${event.id}`, 'GET, HEAD'],
      ['PUT', '/iam/v1/health', 'GET, HEAD'],
      ['PATCH', `/iam/v1/users/${admin.user.id}`, 'DELETE, GET, HEAD, PUT'],
      ['DELETE', '/stf/v1/baskets', 'POST'],
      ['PUT', `/stf/v1/baskets/${inventory.id}/coupon`, 'DELETE, POST'],
      ['POST', '/openapi.json', 'GET, HEAD'],
    ]
    for (const [method, url, allow] of cases) {
      // Without credentials too: which methods a path serves is in the public document anyway.
      for (const headers of [{}, seller.auth]) {
        const res = await ctx.app.inject({ method, url, headers })
        expectError(res, 405, 'method_not_allowed')
        expect(res.headers.allow, `${method} ${url}`).toBe(allow)
      }
    }
  })

  it('answers HEAD where GET is served, and still 404 for a path no route has', async () => {
    const head = await ctx.app.inject({ method: 'HEAD', url: '/iam/v1/health' })
    expect(head.statusCode).toBe(200)
    for (const [method, url] of [
      ['GET', '/stf/v1/nothing-here'],
      ['POST', '/iam/v1/users/x/y/z'],
      ['DELETE', '/'],
    ] as const) {
      const res = await ctx.app.inject({ method, url, headers: seller.auth })
      expectError(res, 404, 'not_found')
      expect(res.headers.allow).toBeUndefined()
    }
  })

  it('lists method_not_allowed among the error codes of the OpenAPI document', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    expect(doc.components.schemas.Error.properties.code.enum).toContain('method_not_allowed')
  })
})

describe('unknown body fields', () => {
  it('are each named at their own path in details', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/iam/v1/permissions',
      headers: admin.auth,
      payload: { name: 'reports.read', description: 'x', colour: 'red', Name: 'y' },
    })
    expectError(res, 400, 'validation_error')
    expect(res.json().details).toEqual(
      expect.arrayContaining([
        { path: 'colour', message: 'is not a known field' },
        { path: 'Name', message: 'is not a known field' },
      ]),
    )
  })

  it('are named inside arrays and nested objects too', async () => {
    const basket = await ctx.app.inject({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers: seller.auth,
      payload: { items: [{ inventory_id: inventory.id, quantity: 1, price: 1 }] },
    })
    expectError(basket, 400, 'validation_error')
    expect(basket.json().details).toEqual([{ path: 'items.0.price', message: 'is not a known field' }])

    const seller2 = await ctx.app.inject({
      method: 'POST',
      url: '/adm/v1/sellers',
      headers: admin.auth,
      payload: { name: 'Shop', storefront_url: 'https://shop.example.com', settings: { basket_ttl: 60 } },
    })
    expectError(seller2, 400, 'validation_error')
    expect(seller2.json().details).toEqual(expect.arrayContaining([{ path: 'settings.basket_ttl', message: 'is not a known field' }]))
  })
})

describe('event slugs', () => {
  it('match whatever their case, and a uuid whatever its case', async () => {
    for (const idOrSlug of ['rock-in-rio-2030', 'Rock-In-Rio-2030', 'ROCK-IN-RIO-2030', event.id.toUpperCase()]) {
      const res = await ctx.app.inject({ method: 'GET', url: `/stf/v1/events/${idOrSlug}`, headers: seller.auth })
      expect(res.statusCode, `${idOrSlug}: ${res.body}`).toBe(200)
      expect(res.json()).toMatchObject({ id: event.id, slug: 'rock-in-rio-2030' })
    }
    const other = await ctx.app.inject({ method: 'GET', url: '/stf/v1/events/Rock-In-Rio-2031', headers: seller.auth })
    expectError(other, 404, 'not_found')
  })
})

describe('a trailing slash', () => {
  it('is tolerated on GET', async () => {
    for (const [url, headers] of [
      ['/stf/v1/events/', seller.auth],
      [`/stf/v1/events/${event.slug}/`, seller.auth],
      [`/stf/v1/events/${event.id}/availability/`, seller.auth],
      ['/iam/v1/health/', {}],
      [`/adm/v1/sellers/${seller.seller.id}/`, admin.auth],
    ] as const) {
      const res = await ctx.app.inject({ method: 'GET', url, headers })
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
    }
    const query = await ctx.app.inject({ method: 'GET', url: '/stf/v1/events/?limit=1', headers: seller.auth })
    expect(query.statusCode, query.body).toBe(200)
    expect(query.json().meta.limit).toBe(1)
    const head = await ctx.app.inject({ method: 'HEAD', url: '/iam/v1/health/' })
    expect(head.statusCode).toBe(200)
  })

  it('is not on a write: an empty last id never lands on the sibling route', async () => {
    const basket = await ctx.app.inject({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers: seller.auth,
      payload: { items: [{ inventory_id: inventory.id, quantity: 1 }] },
    })
    expect(basket.statusCode, basket.body).toBe(201)
    const coupon = await createTestCoupon(ctx.app, seller.seller.id)
    const applied = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${basket.json().id}/coupon`,
      headers: seller.auth,
      payload: { code: coupon.code },
    })
    expect(applied.json().coupon, applied.body).toMatchObject({ code: coupon.code })
    // `DELETE .../coupon/{item_id}` without its item id is not `DELETE .../coupon`.
    const removed = await ctx.app.inject({ method: 'DELETE', url: `/stf/v1/baskets/${basket.json().id}/coupon/`, headers: seller.auth })
    expectError(removed, 400, 'validation_error')
    expect(removed.json().details).toEqual([expect.objectContaining({ path: 'params.item_id' })])
    const after = await ctx.app.inject({ method: 'GET', url: `/stf/v1/baskets/${basket.json().id}`, headers: seller.auth })
    expect(after.json().coupon).toMatchObject({ code: coupon.code })
    expectError(await ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets/', headers: seller.auth, payload: { items: [] } }), 404, 'not_found')
  })
})
