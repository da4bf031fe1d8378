import { STATUS_CODES } from 'node:http'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import { ERRORS } from '../errors.js'

const DESCRIPTION = `White-label ticket selling.

* \`/stf/v1\`: partner storefronts. HTTP Basic on every call: username = seller id, password = API key.
  A signed-in customer adds \`X-Customer-Token\`; \`X-Affiliate-Code\` attributes the call to an affiliate.
* \`/iam/v1\`: staff identity and access. \`Authorization: Bearer <access_token>\` from \`POST /iam/v1/auth/login\`.
* \`/adm/v1\`: back office, with the same staff tokens, checked against permissions.
* \`/chk/v1\`: door check-in for paired scanner devices. \`Authorization: Device <token>\` from \`POST /chk/v1/pair\`.

Errors share one envelope \`{ code, message, trace_id }\` (validation errors add \`details\`, a list; some
refusals add \`details\`, an object: \`basket_checked_out\` its \`order_id\`, \`price_changed\` the new total,
\`inventory_unavailable\` its \`inventory_id\`). Every response carries \`X-Trace-Id\`; send \`X-Request-Id\` to
choose it. Money is integer centavos. Dates and instants in requests lie between 1900-01-01 and 2199-12-31.`

const ERROR_REF = '#/components/schemas/Error'
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

type Json = Record<string, unknown>
type Operation = { operationId?: string; responses?: Record<string, { description?: string; content?: Json }> }
type Document = { paths?: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Json> } }

/**
 * The OpenAPI 3.1 document, generated from the zod schemas that validate requests, served
 * at `/openapi.json`, with a browsable reference at `/docs`. Register before any route, once
 * `app.publicBaseUrl` is decorated.
 */
export async function registerOpenApi(app: FastifyInstance, version: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Boxoffice API', version, description: DESCRIPTION },
      tags: [
        { name: 'storefront', description: 'Partner storefronts (/stf/v1), HTTP Basic' },
        { name: 'iam', description: 'Staff identity and access (/iam/v1), Bearer' },
        { name: 'backoffice', description: 'Back office (/adm/v1), Bearer with permissions' },
        { name: 'checkin', description: 'Door check-in for scanner devices (/chk/v1), `Authorization: Device <token>`' },
      ],
      components: {
        securitySchemes: {
          sellerBasic: { type: 'http', scheme: 'basic', description: 'username = seller id, password = API key' },
          customerToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Customer-Token',
            description: 'A customer access token, with the Basic credentials of its seller',
          },
          orderToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Order-Token',
            description: 'The token of one order (a guest checkout’s `order_token`), with the Basic credentials of its seller: opens that order only',
          },
          staffBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          deviceToken: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'A paired scanner device: `Authorization: Device <token>` (from POST /chk/v1/pair)',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
    // The document is made at the first request for it, once the server listens: `servers` names
    // its real port when PUBLIC_BASE_URL is unset (docs/operations.md), and stays in its place after `info`.
    transformObject: (input) => {
      const { openapi, info, ...rest } = finishDocument(jsonSchemaTransformObject(input) as Document) as Json
      const servers = [{ url: app.publicBaseUrl, description: 'This deployment (`PUBLIC_BASE_URL`)' }]
      return { openapi, info, servers, ...rest } as ReturnType<typeof jsonSchemaTransformObject>
    },
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: false },
    staticCSP: true,
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}

/**
 * What the routes leave to the document as a whole, derived once here so that no route can
 * forget it: one component per schema, error responses described from the catalogue, a
 * `default` error response and an `operationId` on every operation.
 */
export function finishDocument<D extends Document>(doc: D): D {
  mergeInputComponents(doc)
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method]
      if (!operation) continue
      operation.operationId ??= fallbackOperationId(method, path)
      operation.responses ??= {}
      const responses = operation.responses
      for (const [status, response] of Object.entries(responses)) {
        mediaTypeOf(response)
        if (status === 'default' || response.description !== 'Default Response') continue
        response.description = Number(status) >= 400 ? errorDescription(Number(status)) : (STATUS_CODES[status] ?? 'Success')
      }
      responses.default ??= {
        description: 'Any other failure, in the error envelope',
        content: { 'application/json': { schema: { $ref: ERROR_REF } } },
      }
    }
  }
  return doc
}

/**
 * A response that is not JSON (an image, a PDF) declares its schema as a string with
 * `contentMediaType` (`z.string().meta({ contentMediaType: 'image/png' })`): it is listed under
 * that media type, not under `application/json`.
 */
function mediaTypeOf(response: { content?: Json }) {
  const json = response.content?.['application/json'] as { schema?: { contentMediaType?: unknown } } | undefined
  const mediaType = json?.schema?.contentMediaType
  if (typeof mediaType === 'string') response.content = { [mediaType]: json }
}

/** The codes of the catalogue a status stands for, e.g. `Conflict: already_exists, insufficient_inventory`. */
function errorDescription(status: number): string {
  const codes = Object.entries(ERRORS)
    .filter(([, entry]) => entry.status === status)
    .map(([code]) => `\`${code}\``)
  return `${STATUS_CODES[status] ?? 'Error'}${codes.length ? `: ${codes.join(', ')}` : ''}`
}

/** `postAdmV1OrdersByIdCancel` for `POST /adm/v1/orders/{id}/cancel`: unique, for a route that names none. */
function fallbackOperationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith('{') ? `by_${segment.slice(1, -1)}` : segment))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
  return method + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')
}

/**
 * The zod type provider writes each named schema twice, as the requests take it (`XInput`) and
 * as the responses give it (`X`), used or not. Here an `XInput` that says the same as its `X`
 * becomes `X`, a schema nothing refers to goes, and an `XInput` without an `X` is named `X`:
 * a generated client gets one type per shape. Those that differ (defaults: optional in a
 * request, always present in a response) keep both names.
 */
function mergeInputComponents(doc: Document) {
  const schemas = doc.components?.schemas
  if (!schemas) return
  const renamed = new Map<string, string>()
  const rename = (name: string) => renamed.get(name) ?? name
  const canonical = (value: unknown) => stableJson(rewriteRefs(value, rename))
  for (let changed = true; changed; ) {
    changed = false
    for (const name of Object.keys(schemas)) {
      const base = name.slice(0, -'Input'.length)
      if (!name.endsWith('Input') || renamed.has(name) || !(base in schemas)) continue
      if (canonical(schemas[name]) === canonical(schemas[base])) {
        renamed.set(name, base)
        changed = true
      }
    }
  }
  rewriteAll(doc, rename)
  for (const name of renamed.keys()) delete schemas[name]

  const used = referencedComponents(doc)
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name]

  const lone = new Map<string, string>()
  for (const name of Object.keys(schemas)) {
    const base = name.slice(0, -'Input'.length)
    if (name.endsWith('Input') && !(base in schemas)) lone.set(name, base)
  }
  rewriteAll(doc, (name) => lone.get(name) ?? name)
  for (const [from, to] of lone) {
    schemas[to] = schemas[from]!
    delete schemas[from]
  }
  // Components in name order, for a reader of the document and a stable diff.
  if (doc.components) doc.components.schemas = Object.fromEntries(Object.entries(schemas).sort(([x], [y]) => x.localeCompare(y)))
}

const COMPONENT_REF = '#/components/schemas/'

/** `value` with every `$ref` to a component renamed by `rename`. */
function rewriteRefs(value: unknown, rename: (name: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, rename))
  if (value === null || typeof value !== 'object') return value
  const out: Json = {}
  for (const [key, child] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof child === 'string' && child.startsWith(COMPONENT_REF)
        ? COMPONENT_REF + rename(child.slice(COMPONENT_REF.length))
        : rewriteRefs(child, rename)
  }
  return out
}

function rewriteAll(doc: Document, rename: (name: string) => string) {
  if (doc.paths) doc.paths = rewriteRefs(doc.paths, rename) as Document['paths']
  // In place: callers hold the schemas object across renames.
  const schemas = doc.components?.schemas
  if (schemas) for (const name of Object.keys(schemas)) schemas[name] = rewriteRefs(schemas[name], rename) as Json
}

/** The components the paths refer to, directly or through other components. */
function referencedComponents(doc: Document): Set<string> {
  const used = new Set<string>()
  const visit = (value: unknown) => {
    if (Array.isArray(value)) return value.forEach(visit)
    if (value === null || typeof value !== 'object') return
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(COMPONENT_REF)) {
        const name = child.slice(COMPONENT_REF.length)
        if (!used.has(name)) {
          used.add(name)
          visit(doc.components?.schemas?.[name])
        }
      } else visit(child)
    }
  }
  visit(doc.paths)
  return used
}

/** JSON with object keys sorted, to compare two schemas whatever the order of their keys. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  return `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${stableJson((value as Json)[key])}`)
    .join(',')}}`
}
