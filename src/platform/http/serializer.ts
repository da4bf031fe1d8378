import type { FastifySerializerCompiler } from 'fastify'
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod'
import { $ZodType } from 'zod/v4/core'

type Write = (value: unknown) => string

/** What a compiled writer throws when a value is not of its schema's JSON type: the answer is then zod's. */
class Mismatch extends Error {}
const MISMATCH = (() => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return new Mismatch('not of its schema')
  } finally {
    Error.stackTraceLimit = limit
  }
})()
const mismatch = (): never => {
  throw MISMATCH
}

/** The parts of a zod schema's definition a writer reads. */
type Def = {
  type: string
  shape?: Record<string, $ZodType>
  catchall?: $ZodType
  element?: $ZodType
  innerType?: $ZodType
  entries?: Record<string, unknown>
  values?: readonly unknown[]
}

const defOf = (schema: $ZodType) => schema._zod.def as unknown as Def

const written = new WeakMap<$ZodType, Write | null>()

/**
 * A writer of the JSON of values of `schema`, or null when the schema has a part it does not
 * write (a union, a transform, an open object …): that schema's answers are zod's.
 *
 * It writes what zod's encoding followed by JSON.stringify writes for a value of the schema:
 * the object's declared keys in the schema's order (others left out), optional ones only when
 * present. It checks JSON types only (a string is a string, an enum's value one of its values,
 * a required key present), not formats nor refinements: the answers were built by the code, so
 * they are written, not validated again. A value of another type throws MISMATCH.
 */
export function compileWriter(schema: $ZodType): Write | null {
  const known = written.get(schema)
  if (known !== undefined) return known
  const write = build(schema)
  written.set(schema, write)
  return write
}

function build(schema: $ZodType): Write | null {
  const def = defOf(schema)
  switch (def.type) {
    case 'string':
      return (value) => (typeof value === 'string' ? JSON.stringify(value) : mismatch())
    case 'number':
      return (value) => (typeof value === 'number' && Number.isFinite(value) ? JSON.stringify(value) : mismatch())
    case 'boolean':
      return (value) => (value === true ? 'true' : value === false ? 'false' : mismatch())
    case 'null':
      return (value) => (value === null ? 'null' : mismatch())
    case 'enum':
    case 'literal': {
      const allowed = new Set(def.type === 'enum' ? Object.values(def.entries ?? {}) : def.values)
      return (value) => (allowed.has(value) ? JSON.stringify(value) : mismatch())
    }
    case 'nullable': {
      const inner = compileWriter(def.innerType!)
      return inner && ((value) => (value === null ? 'null' : inner(value)))
    }
    // Encoding applies no default: the value must be there, as the inner schema's. An object
    // leaves an absent optional key out, and an array writes it null, before asking its writer.
    case 'default':
    case 'optional':
      return compileWriter(def.innerType!)
    case 'array': {
      const item = optionalIn(def.element!)
      if (!item) return null
      const { write, optional } = item
      return (value) => {
        if (!Array.isArray(value)) return mismatch()
        let out = '['
        for (let i = 0; i < value.length; i++) {
          const element = value[i]
          // JSON.stringify writes an undefined element as null.
          out += (i === 0 ? '' : ',') + (element === undefined && optional ? 'null' : write(element))
        }
        return `${out}]`
      }
    }
    case 'object':
      return buildObject(def)
    default:
      return null
  }
}

/** A writer of the schema, and whether it may be undefined (an optional key, zod's `optout`). */
function optionalIn(schema: $ZodType): { write: Write; optional: boolean } | null {
  const write = compileWriter(schema)
  return write && { write, optional: schema._zod.optout === 'optional' }
}

function buildObject(def: Def): Write | null {
  // An object that keeps undeclared keys (looseObject, catchall) is zod's to write.
  if (def.catchall !== undefined && defOf(def.catchall).type !== 'never') return null
  const fields: { key: string; prefix: string; write: Write; optional: boolean }[] = []
  for (const [key, field] of Object.entries(def.shape ?? {})) {
    const compiled = optionalIn(field)
    if (!compiled) return null
    fields.push({ key, prefix: `${JSON.stringify(key)}:`, ...compiled })
  }
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return mismatch()
    const record = value as Record<string, unknown>
    let out = '{'
    let first = true
    for (const field of fields) {
      const fieldValue = record[field.key]
      if (fieldValue === undefined) {
        if (field.optional) continue
        return mismatch()
      }
      out += (first ? '' : ',') + field.prefix + field.write(fieldValue)
      first = false
    }
    return `${out}}`
  }
}

const zodSchemaOf = (schema: unknown): $ZodType | undefined => {
  if (schema instanceof $ZodType) return schema
  const properties = (schema as { properties?: unknown } | null)?.properties
  return properties instanceof $ZodType ? properties : undefined
}

/**
 * Fastify's serializer compiler for the routes' zod response schemas: each answer is written by
 * a writer compiled once from its schema (`compileWriter`), not encoded by zod and then
 * stringified. An answer the writer cannot write (a value of another type than its schema's),
 * and a schema it does not write, go through fastify-type-provider-zod's serializer as before,
 * with its 500 for an answer that does not fit.
 */
export const serializerCompiler: FastifySerializerCompiler<unknown> = (route) => {
  const byZod = zodSerializerCompiler(route as Parameters<typeof zodSerializerCompiler>[0])
  const schema = zodSchemaOf(route.schema)
  const write = schema && compileWriter(schema)
  if (!write) return byZod
  return (data) => {
    try {
      return write(data)
    } catch (error) {
      if (error === MISMATCH) return byZod(data)
      throw error
    }
  }
}
