import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyInstance } from 'fastify'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERRORS } from '../../src/platform/errors.js'
import { buildTestApp, useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { createTestSeller } from '../factories/sellers.js'
import { dateInputsOf, type OpenApiDocument } from '../support/openapi-inputs.js'

const ctx = useTestApp()
const ROOT = path.resolve(import.meta.dirname, '../..')
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }

type Operation = {
  operationId?: string
  security?: Record<string, string[]>[]
  parameters?: { in: string; name: string; required?: boolean; schema: Record<string, unknown> }[]
  responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, unknown> }> }>
}
type Doc = OpenApiDocument & {
  info: { version: string }
  servers: { url: string }[]
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Record<string, unknown>> }
}

let doc: Doc
const operations = () =>
  Object.entries(doc.paths).flatMap(([route, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ name: `${method} ${route}`, route, operation })),
  )

beforeAll(async () => {
  doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
})

describe('the OpenAPI document, for generated clients', () => {
  it('gives every operation a unique operationId and a security requirement (empty for public ones)', () => {
    const ids = operations().map(({ name, operation }) => {
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z0-9]+$/)
      // Named by its route (\`operationId\` in the schema), not the fallback derived from the path.
      expect(operation.operationId, `${name}: give the route an operationId`).not.toMatch(/(Stf|Iam|Adm)V1/)
      expect(Array.isArray(operation.security), name).toBe(true)
      return operation.operationId
    })
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBeGreaterThanOrEqual(85)
    expect(doc.paths['/stf/v1/events']!.get!.operationId).toBe('listEvents')
    expect(doc.paths['/stf/v1/baskets/{id}/checkout']!.post!.operationId).toBe('checkoutBasket')
    expect(doc.paths['/adm/v1/orders/{id}/cancel']!.post!.operationId).toBe('admCancelOrder')
    expect(doc.paths['/iam/v1/health']!.get!.security).toEqual([])
  })

  it('gives every operation a default response, and every error response, in the error envelope', () => {
    for (const { name, operation } of operations()) {
      expect(operation.responses.default?.content?.['application/json']?.schema, name).toEqual({ $ref: '#/components/schemas/Error' })
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.description, `${name} ${status}`).not.toBe('Default Response')
        if (!/^[45]\d\d$/.test(status) || (name === 'get /iam/v1/health' && status === '503')) continue
        expect(response.content?.['application/json']?.schema, `${name} ${status}`).toEqual({ $ref: '#/components/schemas/Error' })
        // The description names the codes of that status, from the catalogue.
        for (const [code, entry] of Object.entries(ERRORS)) if (entry.status === Number(status)) expect(response.description).toContain(code)
      }
    }
  })

  it('holds one component per shape: no *Input twins, none unused, no two alike', () => {
    const names = Object.keys(doc.components.schemas)
    expect(names.filter((name) => name.endsWith('Input'))).toEqual([])
    const text = JSON.stringify(doc.paths) + JSON.stringify(doc.components.schemas)
    for (const name of names) expect(text, name).toContain(`"#/components/schemas/${name}"`)
    const bodies = names.map((name) => JSON.stringify(doc.components.schemas[name]))
    expect(new Set(bodies).size).toBe(bodies.length)
    // Requests refer to the request shapes by their own names.
    expect(doc.paths['/iam/v1/users']!.post!).toMatchObject({
      requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateUserRequest' } } } },
    })
  })

  it('bounds every date and date-time a request can carry to 1900-01-01 .. 2199-12-31', () => {
    const inputs = dateInputsOf(doc)
    expect(inputs.length).toBeGreaterThanOrEqual(8)
    for (const { where, schema } of inputs) {
      expect(schema['x-formatMinimum']?.slice(0, 10), where).toBe('1900-01-01')
      expect(schema['x-formatMaximum']?.slice(0, 10), where).toBe('2199-12-31')
      expect(schema.pattern, where).toMatch(/^\^\(\?:\(\?:19\|20\|21\)/)
    }
  })

  it('takes info.version from package.json and servers from PUBLIC_BASE_URL', async () => {
    expect(doc.info.version).toBe(pkg.version)
    expect(doc.servers).toEqual([{ url: 'http://127.0.0.1:3000', description: expect.any(String) }])
    const proxied = await buildTestApp({ env: { PUBLIC_BASE_URL: 'https://tickets.example.com/api/' } })
    try {
      const served = (await proxied.inject({ method: 'GET', url: '/openapi.json' })).json()
      expect(served.servers).toEqual([{ url: 'https://tickets.example.com/api', description: expect.any(String) }])
    } finally {
      await proxied.close()
    }
  })
})

/** A client program against the generated types: it must compile, and it runs against the app. */
const EXAMPLE = `
import createClient from 'openapi-fetch'
import type { components, operations, paths } from './schema.js'

type Schemas = components['schemas']
export type ErrorCode = Schemas['Error']['code']

/** Lists events, reads one's availability and opens a basket, through the generated types only. */
export async function sellTickets(options: { baseUrl: string; sellerId: string; apiKey: string; fetch: typeof fetch }) {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: { authorization: 'Basic ' + Buffer.from(options.sellerId + ':' + options.apiKey).toString('base64') },
  })
  const events = await client.GET('/stf/v1/events', {
    params: { query: { date_from: '1900-01-01', limit: 10 }, header: { 'x-end-user-ip': '203.0.113.7' } },
  })
  if (!events.data) throw new Error('no events')
  const event: Schemas['SellerEvent'] = events.data.data[0]!
  const detail = await client.GET('/stf/v1/events/{id_or_slug}', { params: { path: { id_or_slug: event.slug.toUpperCase() } } })
  const availability = await client.GET('/stf/v1/events/{id}/availability', { params: { path: { id: event.id }, query: { from: '2000-01-01', to: '2000-12-31' } } })
  const future = await client.GET('/stf/v1/events/{id}/availability', { params: { path: { id: event.id } } })
  const inventory = future.data?.data[0]?.inventories[0]
  if (!inventory) throw new Error('nothing on sale')
  const body: operations['createBasket']['requestBody']['content']['application/json'] = { items: [{ inventory_id: inventory.id, quantity: 2 }] }
  const basket = await client.POST('/stf/v1/baskets', { params: { header: { 'idempotency-key': 'sdk-example-1' } }, body })
  const refused = await client.POST('/stf/v1/baskets', { body: { items: [{ inventory_id: inventory.id, quantity: 21 }] } })
  const code: ErrorCode | undefined = refused.error?.code
  // Validation errors detail field by field; some refusals (price_changed...) give an object.
  const details = refused.error?.details
  const paths = Array.isArray(details) ? details.map((d) => d.path) : undefined
  const health: Schemas['ServiceHealth'] | undefined = (await client.GET('/iam/v1/health')).data
  return {
    title: detail.data?.title,
    pastDates: availability.data?.data.length,
    basketTotal: basket.data?.totals.total,
    basketStatus: basket.response.status,
    refusedWith: code,
    refusedDetails: paths,
    health: health?.status,
  }
}

/** Mistakes the generated types catch: never called. */
export async function mistakes(client: ReturnType<typeof createClient<paths>>) {
  // @ts-expect-error: no such path
  await client.GET('/stf/v1/nowhere')
  // @ts-expect-error: the path takes no PUT
  await client.PUT('/stf/v1/events')
  await client.POST('/stf/v1/baskets', {
    body: {
      // @ts-expect-error: a quantity is a number
      items: [{ inventory_id: 'x', quantity: '2' }],
    },
  })
  const body: operations['createBasket']['requestBody']['content']['application/json'] = {
    items: [],
    // @ts-expect-error: requests take no unknown field
    colour: 'red',
  }
  // @ts-expect-error: the availability needs the event id
  await client.GET('/stf/v1/events/{id}/availability', { params: { path: {} } })
  const code: ErrorCode = 'method_not_allowed'
  // @ts-expect-error: not a code of the catalogue
  const wrong: ErrorCode = 'teapot'
  return [code, wrong, body]
}
`

describe('a TypeScript client generated from the document', () => {
  let dir: string
  let other: FastifyInstance | undefined

  beforeAll(() => {
    // Under node_modules, so that the example resolves openapi-fetch and @types/node as the project does.
    mkdirSync(path.join(ROOT, 'node_modules/.tmp'), { recursive: true })
    dir = mkdtempSync(path.join(ROOT, 'node_modules/.tmp/sdk-'))
  })
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await other?.close()
  })

  it('type-checks a small client program, which then sells through it', async () => {
    writeFileSync(path.join(dir, 'schema.ts'), astToString(await openapiTS(doc as never)))
    writeFileSync(path.join(dir, 'example.ts'), EXAMPLE)
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }')

    const program = ts.createProgram([path.join(dir, 'example.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      skipLibCheck: true,
      noUncheckedIndexedAccess: true,
    })
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file ? path.basename(d.file.fileName) : ''}:${d.start ?? ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
    expect(problems).toEqual([])

    // The same program, run: through openapi-fetch, with the app answering instead of a network.
    const output = ts.transpileModule(EXAMPLE, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
    writeFileSync(path.join(dir, 'example.mjs'), output)
    const { sellTickets } = (await import(pathToFileURL(path.join(dir, 'example.mjs')).href)) as {
      sellTickets: (options: { baseUrl: string; sellerId: string; apiKey: string; fetch: typeof fetch }) => Promise<Record<string, unknown>>
    }
    const seller = await createTestSeller(ctx.app)
    const event = await createTestEvent(ctx.app, seller.seller.id, { title: 'Through the SDK', slug: 'through-the-sdk' })
    await createTestInventory(ctx.app, event, { date: dayFromToday(3), price: 2500 })
    const viaInject: typeof fetch = async (input, init) => {
      const request = new Request(input, init)
      const url = new URL(request.url)
      const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined
      const res = await ctx.app.inject({
        method: request.method as 'GET',
        url: url.pathname + url.search,
        headers: Object.fromEntries(request.headers),
        ...(payload ? { payload } : {}),
      })
      const headers = new Headers()
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value))
      return new Response(res.statusCode === 204 ? null : res.rawPayload, { status: res.statusCode, headers })
    }
    const result = await sellTickets({ baseUrl: doc.servers[0]!.url, sellerId: seller.seller.id, apiKey: seller.apiKey, fetch: viaInject })
    expect(result).toEqual({
      title: 'Through the SDK',
      pastDates: 0,
      basketTotal: 5000,
      basketStatus: 201,
      refusedWith: 'validation_error',
      refusedDetails: ['items.0.quantity'],
      health: 'ok',
    })
  }, 60_000)
})
