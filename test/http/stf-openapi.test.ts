import { describe, expect, it } from 'vitest'
import { useTestApp } from '../build-app.js'

const ctx = useTestApp()

type Operation = {
  security?: Record<string, string[]>[]
  parameters?: { in: string; name: string; required?: boolean; schema: Record<string, unknown> }[]
}
const operationsOf = (doc: { paths: Record<string, Record<string, Operation>> }) =>
  Object.entries(doc.paths).flatMap(([route, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ name: `${method} ${route}`, route, operation })),
  )

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
    expect(doc.paths['/stf/v1/baskets/{id}/checkout'].post.security).toEqual([{ sellerBasic: [], customerToken: [] }, { sellerBasic: [] }])
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

  it('declares X-Affiliate-Code on every storefront operation, X-Customer-Token where a customer may act, Idempotency-Key where honoured', async () => {
    const header = (operation: Operation, name: string) => operation.parameters?.find((p) => p.in === 'header' && p.name === name)
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    for (const { name, route, operation } of operationsOf(doc)) {
      if (!route.startsWith('/stf/v1/')) {
        expect(header(operation, 'x-affiliate-code'), name).toBeUndefined()
        continue
      }
      expect(header(operation, 'x-affiliate-code'), name).toMatchObject({ required: false, schema: { type: 'string' } })
      expect(header(operation, 'x-end-user-ip'), name).toBeDefined()
      const takesCustomer = operation.security!.some((requirement) => 'customerToken' in requirement)
      expect(Boolean(header(operation, 'x-customer-token')), name).toBe(takesCustomer)
    }
    const withCustomer = operationsOf(doc)
      .filter(({ operation }) => header(operation, 'x-customer-token'))
      .map(({ name }) => name)
    expect(withCustomer.sort()).toEqual(
      [
        'delete /stf/v1/auth/logout',
        'get /stf/v1/me',
        'post /stf/v1/baskets',
        'post /stf/v1/baskets/{id}/checkout',
        'get /stf/v1/orders',
        'get /stf/v1/orders/{id}',
        'post /stf/v1/orders/{id}/cancel',
        'post /stf/v1/orders/{id}/tickets/{identifier}/transfers',
        'get /stf/v1/orders/{id}/transfers',
        'delete /stf/v1/transfers/{id}',
        'post /stf/v1/transfers/accept',
        'put /stf/v1/orders/{id}/tickets/{identifier}/holder',
        'post /stf/v1/waiting-list',
        'post /stf/v1/waiting-list/accept',
      ].sort(),
    )
    const withIdempotency = operationsOf(doc)
      .filter(({ operation }) => header(operation, 'idempotency-key'))
      .map(({ name }) => name)
    expect(withIdempotency.sort()).toEqual(['post /stf/v1/baskets', 'post /stf/v1/baskets/{id}/checkout'])
  })

  it('gives the uuid and uri formats of the source document', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, unknown> }>
    expect(schemas.EventImage!.properties).toMatchObject({ id: { format: 'uuid' }, url: { format: 'uri' } })
    expect(schemas.EventAttribute!.properties).toMatchObject({ id: { format: 'uuid' } })
    expect(schemas.SellerEvent!.properties).toMatchObject({ id: { format: 'uuid' }, updated_at: { format: 'date-time' } })
    expect(schemas.AvailabilityInventory!.properties).toMatchObject({ id: { format: 'uuid' } })
    expect(schemas.RegisterTicketDownloadRequest!.properties).toMatchObject({ order_id: { format: 'uuid' }, user_id: { format: 'uuid' } })
    expect(schemas.UserInfo!.properties).toMatchObject({ id: { format: 'uuid' } })
  })
})
