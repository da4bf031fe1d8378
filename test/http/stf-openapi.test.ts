import { describe, expect, it } from 'vitest'
import { useTestApp } from '../build-app.js'

const ctx = useTestApp()

describe('OpenAPI document of the commerce routes', () => {
  it('documents every storefront commerce route with tags, summary, security and error envelopes', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const routes: [string, string][] = [
      ['/stf/v1/events', 'get'],
      ['/stf/v1/events/{id_or_slug}', 'get'],
      ['/stf/v1/events/{id}/availability', 'get'],
      ['/stf/v1/baskets', 'post'],
      ['/stf/v1/baskets/{id}', 'get'],
      ['/stf/v1/baskets/{id}/items', 'patch'],
      ['/stf/v1/baskets/{id}/coupon', 'post'],
      ['/stf/v1/baskets/{id}/coupon', 'delete'],
      ['/stf/v1/baskets/{id}/coupon/{item_id}', 'post'],
      ['/stf/v1/baskets/{id}/coupon/{item_id}', 'delete'],
      ['/stf/v1/baskets/{id}/installments', 'post'],
      ['/stf/v1/baskets/{id}/checkout', 'post'],
      ['/stf/v1/orders', 'get'],
      ['/stf/v1/orders/{id}', 'get'],
      ['/stf/v1/tickets/downloads', 'post'],
    ]
    for (const [path, method] of routes) {
      const operation = doc.paths[path]?.[method]
      expect(operation, `${method} ${path}`).toBeDefined()
      expect(operation.tags).toEqual(['storefront'])
      expect(operation.summary).toEqual(expect.any(String))
      expect(operation.security).toEqual(expect.arrayContaining([expect.objectContaining({ sellerBasic: [] })]))
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['400', '401']))
    }
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        'SellerEventList',
        'SellerEvent',
        'EventDetail',
        'EventImage',
        'EventPrice',
        'AvailabilityResponse',
        'Basket',
        'BasketItem',
        'Installments',
        'Order',
        'RegisterTicketDownloadRequest',
        'RegisterTicketDownloadResponse',
      ]),
    )
    expect(doc.paths['/stf/v1/baskets/{id}/checkout'].post.security).toEqual([{ sellerBasic: [], customerToken: [] }])
    for (const [path, method] of [
      ['/adm/v1/sellers/{id}/orders', 'get'],
      ['/adm/v1/orders/{id}', 'get'],
      ['/adm/v1/orders/{id}/cancel', 'post'],
    ] as const) {
      const operation = doc.paths[path]?.[method]
      expect(operation, `${method} ${path}`).toMatchObject({ tags: ['backoffice'], summary: expect.any(String), security: [{ staffBearer: [] }] })
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403', '404']))
    }
    expect(doc.paths['/stf/v1/baskets'].post.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'idempotency-key', in: 'header' })]))
  })

  it('declares X-End-User-IP on every storefront operation, and email_not_verified among the error codes', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const operations = Object.entries(doc.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>)
      .filter(([path]) => path.startsWith('/stf/v1/'))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ name: `${method} ${path}`, operation })))
    expect(operations.length).toBeGreaterThan(20)
    for (const { name, operation } of operations) {
      expect(operation.parameters, name).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'x-end-user-ip', in: 'header' })]))
    }
    expect(doc.paths['/stf/v1/auth/verify-email/resend']?.post).toBeDefined()
    expect(doc.components.schemas.Error.properties.code.enum).toContain('email_not_verified')
    expect(Object.keys(doc.paths['/stf/v1/auth/login'].post.responses)).toContain('403')
  })
})
