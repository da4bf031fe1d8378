import fc from 'fast-check'

/**
 * Request generation from the served OpenAPI document, which is generated from the zod
 * schemas that validate requests: every operation, each of its parameters and body fields,
 * first as a valid value of its schema, then one of them replaced by something hostile.
 */

export type JsonSchema = {
  $ref?: string
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  format?: string
  /** Bounds of a `date` or `date-time` string (ajv-formats' keywords, as an extension). */
  'x-formatMinimum'?: string
  'x-formatMaximum'?: string
  pattern?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minItems?: number
  maxItems?: number
  items?: JsonSchema
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
}

export type OpenApiDocument = {
  paths: Record<string, Record<string, OperationObject>>
  components?: { schemas?: Record<string, JsonSchema> }
}

type OperationObject = {
  parameters?: { in: 'path' | 'query' | 'header'; name: string; required?: boolean; schema: JsonSchema }[]
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> }
  security?: Record<string, unknown>[]
}

export type Param = { in: 'path' | 'query' | 'header'; name: string; required: boolean; schema: JsonSchema }

export type Operation = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** OpenAPI path, e.g. `/stf/v1/baskets/{id}`. */
  path: string
  params: Param[]
  body: JsonSchema | undefined
  /** Security scheme names of the first requirement (e.g. `sellerBasic`, `customerToken`). */
  security: string[]
}

/** Every operation of the document, in document order. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = []
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      // Several alternatives: the widest one, so that a route that may take a customer token gets one.
      const security = (op.security ?? []).map((s) => Object.keys(s)).sort((x, y) => y.length - x.length)[0] ?? []
      ops.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        params: (op.parameters ?? []).map((p) => ({ in: p.in, name: p.name.toLowerCase(), required: Boolean(p.required), schema: p.schema })),
        body: op.requestBody?.content['application/json']?.schema,
        security,
      })
    }
  }
  return ops
}

/** Ids of real objects, so that generated requests reach past "not found" into the handlers. */
export type IdPools = {
  /** Ids for the path parameter `name` of operation path `path`, following `segment` (e.g. `baskets`, `id`). */
  forPath(path: string, segment: string, name: string): readonly string[]
  /** Ids for a uuid anywhere else (bodies, queries). */
  any: readonly string[]
}

const resolve = (doc: OpenApiDocument, schema: JsonSchema): JsonSchema => {
  let current = schema
  for (let depth = 0; current.$ref && depth < 10; depth++) {
    const name = current.$ref.replace('#/components/schemas/', '')
    current = doc.components?.schemas?.[name] ?? {}
  }
  return current
}

const ISO_DATE = fc.integer({ min: -30, max: 400 }).map((days) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10))
const ISO_INSTANT = fc.integer({ min: -30, max: 400 }).map((days) => new Date(Date.now() + days * 86_400_000).toISOString())

/**
 * The extremes a `date` or `date-time` schema admits: its declared bounds, else those of the
 * format itself (year 0 and year 9999), which a schema without bounds lets through to the database.
 */
const FORMAT_EXTREMES = {
  date: { min: '0000-01-01', max: '9999-12-31' },
  'date-time': { min: '0000-01-01T00:00:00Z', max: '9999-12-31T23:59:59.999Z' },
} as const

/** Dates and instants of the right format that no booking has: beyond any sensible range, or odd. */
export const HOSTILE_DATES = {
  date: ['0000-01-01', '9999-12-31', '1899-12-31', '2200-01-01', '0001-01-01', '1969-12-31', '2023-02-29', '2024-02-30', '+275760-09-13', '-000001-01-01'],
  'date-time': [
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '1899-12-31T23:59:59.999Z',
    '2200-01-01T00:00:00Z',
    '1900-01-01T00:00:00+14:00',
    '2199-12-31T23:59:59-14:00',
    '1970-01-01T00:00:00.000000001Z',
    '2024-01-01T24:00:00Z',
    '+275760-09-13T00:00:00Z',
  ],
} as const

type DateFormat = keyof typeof FORMAT_EXTREMES

/** A valid value of a JSON schema, kept small. */
export function validValue(doc: OpenApiDocument, raw: JsonSchema, pools: IdPools, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw)
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  const alternatives = schema.anyOf ?? schema.oneOf
  if (alternatives) return fc.oneof(...alternatives.map((s) => validValue(doc, s, pools, depth)))
  if (schema.allOf?.length) return validValue(doc, schema.allOf[0]!, pools, depth)
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  switch (type) {
    case 'string':
      return validString(schema, pools)
    case 'integer': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000)
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000)
      // The bounds themselves are where bugs live; a few values in between too.
      return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max }))
    }
    case 'number': {
      const min = schema.minimum ?? -1000
      const max = schema.maximum ?? 1000
      return fc.oneof(fc.constantFrom(min, max), fc.double({ min, max, noNaN: true, noDefaultInfinity: true }))
    }
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array': {
      const item = schema.items ? validValue(doc, schema.items, pools, depth + 1) : fc.constant(null)
      const minLength = schema.minItems ?? 0
      return fc.uniqueArray(item, {
        minLength,
        maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, depth > 1 ? 1 : 3)),
        selector: (v) => JSON.stringify(v),
      })
    }
    case 'object':
    case undefined: {
      const properties = schema.properties ?? {}
      const model = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, validValue(doc, value, pools, depth + 1)]))
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in model) }) as fc.Arbitrary<unknown>
    }
    default:
      return fc.constant(null)
  }
}

function validString(schema: JsonSchema, pools: IdPools): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0
  const max = Math.min(schema.maxLength ?? 40, 40)
  switch (schema.format) {
    case 'uuid':
      return pools.any.length ? fc.oneof(fc.constantFrom(...pools.any), fc.uuid({ version: 4 })) : fc.uuid({ version: 4 })
    case 'email':
      return fc.emailAddress().filter((e) => e.length <= (schema.maxLength ?? 254) && /^[^@]+@[^@]+\.[a-z]{2,}$/i.test(e))
    case 'date':
    case 'date-time': {
      const near = schema.format === 'date' ? ISO_DATE : ISO_INSTANT
      const extremes = FORMAT_EXTREMES[schema.format]
      // The bounds themselves are where bugs live, as for integers.
      return fc.oneof(
        { weight: 3, arbitrary: near },
        { weight: 1, arbitrary: fc.constantFrom(schema['x-formatMinimum'] ?? extremes.min, schema['x-formatMaximum'] ?? extremes.max) },
      )
    }
    case 'uri':
      return fc.constantFrom('https://example.com', 'https://shop.example.com/a', 'http://127.0.0.1:8080/img.png')
  }
  if (schema.pattern) {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= (schema.maxLength ?? 1000))
  }
  return fc.string({ minLength: Math.min(min, max), maxLength: Math.max(min, max) }).filter((s) => s.trim().length >= min)
}

// ---------------------------------------------------------------------------------------------
// Hostile values

const HUGE = 'a'.repeat(100 * 1024)
const HUGE_WIDE = '€'.repeat(35 * 1024)

/** Strings an attacker tries, by family. */
export const HOSTILE_STRINGS = {
  nul: ['\u0000', 'a\u0000b', 'admin@example.com\u0000.evil.test', '%00'],
  surrogates: ['\ud800', 'x\udfffy', '\udc00\ud800', 'ok\ud83d'],
  huge: [HUGE, HUGE_WIDE],
  sql: ["' OR '1'='1", "'; DROP TABLE sellers; --", '1; select pg_sleep(10)--', '\\', "\\'", '$1', "') or true --", "E'\\x00'"],
  like: ['%', '_', '%%', '%_%', '\\%', 'a%b_c', '[a-z]*'],
  ids: [
    'not-a-uuid',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '123e4567-e89b-12d3-a456-42661417400g',
    '123e4567-e89b-12d3-a456-4266141740000',
    ' 123e4567-e89b-42d3-a456-426614174000',
    '123E4567-E89B-42D3-A456-426614174000',
    '{id}',
    '../../../etc/passwd',
    '..%2f..%2f',
    '0',
    '-1',
  ],
  numbers: ['1e308', '-1e308', '9007199254740993', '-9007199254740993', 'NaN', 'Infinity', '-0', '0x10', '1_000', ' 5', '+5', '1.5', ''],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as it is
  unicode: ['\u202egnp.exe', '😀'.repeat(30), '\ufeff', 'İstanbul', 'ß', 'a\u0301', '\r\nX-Injected: 1', '<script>alert(1)</script>', '${7*7}', '{{7*7}}'],
  proto: ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'],
} as const

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...Object.values(HOSTILE_STRINGS).flat()) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 10 }), fc.constantFrom('\u0000', '\ud800', '\udfff', '%', '_', "'", '\\', '\n'), fc.string({ maxLength: 10 }))
      .map((parts) => parts.join('')),
  },
)

const HOSTILE_NUMBERS = [
  1e308,
  -1e308,
  2 ** 53 + 1,
  -(2 ** 53 + 1),
  Number.MAX_SAFE_INTEGER,
  -1,
  -0,
  0,
  0.5,
  5e-324,
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31) - 1,
  2 ** 63,
]

/** Any JSON value of the wrong kind or out of range. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: fc.constantFrom<unknown>(...HOSTILE_NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [[[[]]]], [null], { '': '' }, '0', 'true', 'null') },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
)

/** Names of fields a client must never be able to set. */
export const MASS_ASSIGNMENT_FIELDS = [
  'id',
  'seller_id',
  'sellerId',
  'price',
  'unit_price',
  'total',
  'status',
  'roles',
  'permissions',
  'sold',
  'uses',
  'customer_id',
  'email_verified',
  'created_at',
  'admin',
] as const

// ---------------------------------------------------------------------------------------------
// Requests

export type GeneratedRequest = {
  method: Operation['method']
  url: string
  headers: Record<string, string>
  /** Raw body text; absent: no body. */
  payload?: string
  /** What was made hostile, for the failure message. */
  mutation: string
}

type Parts = {
  path: Record<string, string>
  query: [string, string][]
  headers: Record<string, string>
  body: unknown
  hasBody: boolean
}

/** Percent-encodes a path or query component, lone surrogates included (as WTF-8 bytes). */
export function encodeComponent(value: string): string {
  try {
    return encodeURIComponent(value)
  } catch {
    let out = ''
    for (const ch of value) {
      const code = ch.charCodeAt(0)
      if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff) {
        out += `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase()
      } else out += encodeURIComponent(ch)
    }
    return out
  }
}

function render(op: Operation, parts: Parts, extra: { rawBody?: string; mutation: string }): GeneratedRequest {
  const request = build(op, parts, extra)
  // fast-check prints counterexamples with this: short, even for a 1 MiB body.
  Object.defineProperty(request, fc.toStringMethod, {
    value: () => `${request.method} ${request.url.slice(0, 300)} [${request.mutation}] body=${(request.payload ?? '').slice(0, 300)}`,
  })
  return request
}

function build(op: Operation, parts: Parts, extra: { rawBody?: string; mutation: string }): GeneratedRequest {
  const url =
    op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeComponent(parts.path[name.toLowerCase()] ?? '')) +
    (parts.query.length ? `?${parts.query.map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`).join('&')}` : '')
  const headers = { ...parts.headers }
  let payload: string | undefined
  if (extra.rawBody !== undefined) payload = extra.rawBody
  else if (parts.hasBody) payload = JSON.stringify(parts.body)
  if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json'
  return { method: op.method, url, headers, ...(payload === undefined ? {} : { payload }), mutation: extra.mutation }
}

const previousSegment = (path: string, name: string) => {
  const segments = path.split('/')
  const at = segments.indexOf(`{${name}}`)
  return at > 0 ? segments[at - 1]! : ''
}

/** A request that satisfies every schema of the operation (ids drawn from the pools). */
export function validParts(doc: OpenApiDocument, op: Operation, pools: IdPools): fc.Arbitrary<Parts> {
  const path = fc.record(
    Object.fromEntries(
      op.params
        .filter((p) => p.in === 'path')
        .map((p) => {
          const pool = pools.forPath(op.path, previousSegment(op.path, p.name), p.name)
          return [
            p.name,
            pool.length
              ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: fc.uuid({ version: 4 }) })
              : fc.uuid({ version: 4 }),
          ]
        }),
    ),
  ) as fc.Arbitrary<Record<string, string>>
  const queryParams = op.params.filter((p) => p.in === 'query')
  const query = fc.tuple(
    ...queryParams.map((p) =>
      p.required
        ? validValue(doc, p.schema, pools).map((v) => [[p.name, String(v)]] as [string, string][])
        : fc.option(validValue(doc, p.schema, pools), { nil: undefined }).map((v) => (v === undefined ? [] : ([[p.name, String(v)]] as [string, string][]))),
    ),
  )
  // Credentials and the affiliate come valid from the caller (a random one is only a refusal);
  // the hostile mutations below send bad ones.
  const headerParams = op.params.filter((p) => p.in === 'header' && !CALLER_HEADERS.includes(p.name))
  const headers = fc.tuple(
    ...headerParams.map((p) => fc.option(validValue(doc, p.schema, pools), { nil: undefined }).map((v) => (v === undefined ? [] : [[p.name, String(v)]]))),
  )
  const body = op.body ? validValue(doc, op.body, pools) : fc.constant(undefined)
  return fc.record({ path, query, headers, body }).map(({ path: p, query: q, headers: h, body: b }) => ({
    path: p,
    query: q.flat(),
    headers: Object.fromEntries(h.flat() as [string, string][]),
    body: b,
    hasBody: op.body !== undefined && b !== undefined,
  }))
}

/** Every path into a JSON value (objects and arrays), the value itself first. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix]
  if (Array.isArray(value)) for (const [i, v] of value.entries()) out.push(...pathsOf(v, [...prefix, i]))
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]))
  return out
}

function setAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement
  const [head, ...rest] = path
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? setAt(v, rest, replacement) : v))
  return { ...(value as Record<string, unknown>), [head!]: setAt((value as Record<string, unknown>)[head as string], rest, replacement) }
}

const objectPaths = (value: unknown) =>
  pathsOf(value).filter((p) => {
    let v: unknown = value
    for (const k of p) v = (v as Record<string | number, unknown>)[k]
    return v !== null && typeof v === 'object' && !Array.isArray(v)
  })

/** Inserts a raw `"key": value` member into the object at `path` of the JSON text of `body`. */
function withRawMember(body: unknown, path: (string | number)[], member: string): string {
  const marker = '__raw_member_marker__'
  const marked = setAt(body, path, { [marker]: 0, ...(objectAt(body, path) as object) })
  return JSON.stringify(marked).replace(`"${marker}":0`, member).replace(`${member},}`, `${member}}`)
}

function objectAt(value: unknown, path: (string | number)[]): unknown {
  let v = value
  for (const k of path) v = (v as Record<string | number, unknown>)[k]
  return v
}

/** `date` or `date-time` when `raw` is (or may be) such a string, else undefined. */
function dateFormatOf(doc: OpenApiDocument, raw: JsonSchema): DateFormat | undefined {
  const schema = resolve(doc, raw)
  if (schema.format === 'date' || schema.format === 'date-time') return schema.format
  for (const alternative of schema.anyOf ?? schema.oneOf ?? schema.allOf ?? []) {
    const format = dateFormatOf(doc, alternative)
    if (format) return format
  }
  return undefined
}

/** The properties an object schema (or one of its alternatives) declares. */
function propertiesOf(doc: OpenApiDocument, raw: JsonSchema): Record<string, JsonSchema> {
  const schema = resolve(doc, raw)
  const own = schema.properties ?? {}
  const alternatives = (schema.anyOf ?? schema.oneOf ?? schema.allOf ?? []).map((s) => propertiesOf(doc, s))
  return Object.assign({}, ...alternatives, own)
}

/** The item schema of an array schema (or of one of its alternatives). */
function itemsOf(doc: OpenApiDocument, raw: JsonSchema): JsonSchema | undefined {
  const schema = resolve(doc, raw)
  return schema.items ?? (schema.anyOf ?? schema.oneOf ?? []).map((s) => itemsOf(doc, s)).find(Boolean)
}

/**
 * Every date or date-time field of a body, as a path into `value`: the declared ones of each
 * object present in it (also when the valid body left them out), in arrays those of each item.
 */
function datePaths(doc: OpenApiDocument, schema: JsonSchema, value: unknown, prefix: (string | number)[] = []): [(string | number)[], DateFormat][] {
  const out: [(string | number)[], DateFormat][] = []
  if (Array.isArray(value)) {
    const items = itemsOf(doc, schema)
    if (items) for (const [i, v] of value.entries()) out.push(...datePaths(doc, items, v, [...prefix, i]))
  } else if (value !== null && typeof value === 'object') {
    for (const [key, property] of Object.entries(propertiesOf(doc, schema))) {
      const format = dateFormatOf(doc, property)
      if (format) out.push([[...prefix, key], format])
      else if (key in value) out.push(...datePaths(doc, property, (value as Record<string, unknown>)[key], [...prefix, key]))
    }
  }
  return out
}

/**
 * Every date or date-time schema a request can carry (parameters and bodies of every
 * operation, through references), with where it was found.
 */
export function dateInputsOf(doc: OpenApiDocument): { where: string; schema: JsonSchema }[] {
  const found: { where: string; schema: JsonSchema }[] = []
  const walk = (raw: JsonSchema | undefined, where: string, seen: Set<string>) => {
    if (!raw || typeof raw !== 'object') return
    if (raw.$ref) {
      if (seen.has(raw.$ref)) return
      return walk(resolve(doc, raw), where, new Set(seen).add(raw.$ref))
    }
    if (raw.format === 'date' || raw.format === 'date-time') found.push({ where, schema: raw })
    for (const [key, property] of Object.entries(raw.properties ?? {})) walk(property, `${where}.${key}`, seen)
    for (const alternative of [...(raw.anyOf ?? []), ...(raw.oneOf ?? []), ...(raw.allOf ?? [])]) walk(alternative, where, seen)
    if (raw.items) walk(raw.items, `${where}[]`, seen)
    if (typeof raw.additionalProperties === 'object') walk(raw.additionalProperties, `${where}.*`, seen)
  }
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      for (const p of op.parameters ?? []) walk(p.schema, `${method.toUpperCase()} ${path} ${p.in} ${p.name}`, new Set())
      walk(op.requestBody?.content['application/json']?.schema, `${method.toUpperCase()} ${path} body`, new Set())
    }
  }
  return found
}

/** Header names every route reads, besides those the operation declares. */
const AUTH_HEADERS = ['authorization', 'x-customer-token', 'x-affiliate-code', 'x-request-id', 'idempotency-key']

/** Headers whose valid values only the caller has: credentials and the affiliate's code. */
const CALLER_HEADERS = ['authorization', 'x-customer-token', 'x-affiliate-code']

/** Header values must be sendable: no CR, LF or characters beyond latin-1. */
const headerSafe = (value: string) =>
  value
    .replace(/[\r\n]/g, ' ')
    .replace(/[\u0100-\uffff]/g, '?')
    .slice(0, 8000)

/**
 * A request to `op` in which exactly one thing is hostile: a path parameter, a query
 * parameter (also repeated, or one the route does not declare), a header, a body field,
 * a `__proto__`/`constructor` member, a mass-assigned field, or the whole body. Or, now and
 * then, nothing at all: a valid request, which must not fail either.
 */
export function hostileRequest(doc: OpenApiDocument, op: Operation, pools: IdPools, auth: Record<string, string>): fc.Arbitrary<GeneratedRequest> {
  const pathNames = op.params.filter((p) => p.in === 'path').map((p) => p.name)
  const queryNames = op.params.filter((p) => p.in === 'query').map((p) => p.name)
  const headerNames = [...new Set([...op.params.filter((p) => p.in === 'header').map((p) => p.name), ...AUTH_HEADERS])]

  return validParts(doc, op, pools).chain((parts) => {
    const base: Parts = { ...parts, headers: { ...auth, ...parts.headers } }
    const options: { weight: number; arbitrary: fc.Arbitrary<GeneratedRequest> }[] = [
      { weight: 1, arbitrary: fc.constant(render(op, base, { mutation: 'none (valid request)' })) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom(...headerNames), hostileString)
          .map(([name, value]) => render(op, { ...base, headers: { ...base.headers, [name]: headerSafe(value) } }, { mutation: `header ${name}` })),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom(...queryNames, ...MASS_ASSIGNMENT_FIELDS, '__proto__', 'constructor[prototype][admin]', 'page[]'), hostileString, fc.boolean())
          .map(([name, value, repeat]) => {
            const others = base.query.filter(([k]) => k !== name || repeat)
            return render(
              op,
              { ...base, query: [...others, [name, value], ...(repeat ? ([[name, '1']] as [string, string][]) : [])] },
              {
                mutation: `query ${name}${repeat ? ' (repeated)' : ''}`,
              },
            )
          }),
      },
    ]
    // Dates: a query parameter or body field of format date or date-time set to a well-formed
    // date beyond any sensible range (or just inside the declared one), so that no date the
    // format admits reaches the database unchecked.
    const dateTargets = [
      ...op.params
        .filter((p) => p.in === 'query')
        .flatMap((p) => {
          const format = dateFormatOf(doc, p.schema)
          return format ? [{ where: 'query' as const, path: [p.name] as (string | number)[], format }] : []
        }),
      ...(op.body && parts.hasBody ? datePaths(doc, op.body, parts.body).map(([path, format]) => ({ where: 'body' as const, path, format })) : []),
    ]
    if (dateTargets.length) {
      options.push({
        weight: 3,
        arbitrary: fc.constantFrom(...dateTargets).chain((target) =>
          fc.constantFrom(...HOSTILE_DATES[target.format]).map((date) => {
            const mutation = `date ${target.where} ${target.path.join('.')} = ${date}`
            if (target.where === 'body') return render(op, { ...base, body: setAt(parts.body, target.path, date) }, { mutation })
            const name = String(target.path[0])
            return render(op, { ...base, query: [...base.query.filter(([k]) => k !== name), [name, date]] }, { mutation })
          }),
        ),
      })
    }
    if (pathNames.length) {
      options.push({
        weight: 3,
        arbitrary: fc
          .tuple(fc.constantFrom(...pathNames), hostileString)
          .map(([name, value]) => render(op, { ...base, path: { ...base.path, [name]: value } }, { mutation: `path ${name}` })),
      })
    }
    if (op.body && parts.hasBody) {
      const paths = pathsOf(parts.body).filter((p) => p.length > 0)
      if (paths.length) {
        options.push({
          weight: 5,
          arbitrary: fc
            .tuple(fc.constantFrom(...paths), hostileJson)
            .map(([path, value]) => render(op, { ...base, body: setAt(parts.body, path, value) }, { mutation: `body ${path.join('.')}` })),
        })
      }
      const objects = objectPaths(parts.body)
      if (objects.length) {
        options.push({
          weight: 2,
          arbitrary: fc
            .tuple(
              fc.constantFrom(...objects),
              fc.constantFrom('"__proto__":{"admin":true,"seller_id":"x"}', '"constructor":{"prototype":{"admin":true}}', '"__proto__":null'),
            )
            .map(([path, member]) =>
              render(op, base, { rawBody: withRawMember(parts.body, path, member), mutation: `body ${path.join('.') || '(root)'} ${member.slice(0, 16)}` }),
            ),
        })
        options.push({
          weight: 2,
          arbitrary: fc
            .tuple(fc.constantFrom(...objects), fc.constantFrom(...MASS_ASSIGNMENT_FIELDS), fc.oneof(hostileJson, fc.uuid()))
            .map(([path, field, value]) =>
              render(
                op,
                { ...base, body: setAt(parts.body, path, { ...(objectAt(parts.body, path) as object), [field]: value }) },
                {
                  mutation: `body ${path.join('.') || '(root)'} + ${field}`,
                },
              ),
            ),
        })
      }
    }
    if (op.body) {
      options.push({
        weight: 2,
        arbitrary: fc
          .oneof(
            hostileJson.map((v) => ({ raw: JSON.stringify(v) ?? 'null', type: 'application/json', what: 'whole body' })),
            fc.constantFrom(
              { raw: '{', type: 'application/json', what: 'truncated JSON' },
              { raw: '{"a":1,"a":2}', type: 'application/json', what: 'duplicate keys' },
              { raw: '\u0000', type: 'application/json', what: 'NUL body' },
              { raw: '[]'.repeat(1) + ' '.repeat(10), type: 'application/json', what: 'array body' },
              { raw: `${'['.repeat(5000)}${']'.repeat(5000)}`, type: 'application/json', what: 'deeply nested body' },
              { raw: JSON.stringify({ x: 'a'.repeat(1024 * 1024) }), type: 'application/json', what: 'body over 1 MiB' },
              { raw: 'name=x', type: 'application/x-www-form-urlencoded', what: 'form body' },
              { raw: '{}', type: 'text/plain', what: 'text body' },
              { raw: '{}', type: 'application/json; charset=utf-16', what: 'odd charset' },
            ),
          )
          .map(({ raw, type, what }) => render(op, { ...base, headers: { ...base.headers, 'content-type': type } }, { rawBody: raw, mutation: what })),
      })
    } else {
      options.push({
        weight: 1,
        arbitrary: hostileJson.map((v) => render(op, base, { rawBody: JSON.stringify(v) ?? 'null', mutation: 'body on a route that takes none' })),
      })
    }
    return fc.oneof(...options)
  })
}
