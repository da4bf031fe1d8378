import type { FastifyRequest, FastifySchema } from 'fastify'
import { z } from 'zod'
import { SORTS } from '../domain/staff/search.js'

export const TAGS = ['iam']
/** Routes that need `Authorization: Bearer <access_token>`. */
export const STAFF_SECURITY = [{ staffBearer: [] }]
/** Routes open to anyone (health, info, login, refresh, password recovery): an empty `security` in the document. */
export const PUBLIC: [] = []

/** Role and permission names: lower-case words joined by `.`, `_`, `:` or `-`, e.g. `adm.sellers.read`. */
export const ZAccessName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:[._:-][a-z0-9]+)*$/, 'must be lower-case letters and digits, separated by ".", "_", ":" or "-"')

export const ZDescription = z.string().max(500)

export const ZIdPermissionParams = z.object({ id: z.uuid(), permission_id: z.uuid() })

export const ZSearchRequest = z
  .strictObject({
    q: z.string().max(200).optional().describe('Case-insensitive substring of the name (or email, description)'),
    page: z.number().int().min(1).max(1_000_000).default(1),
    limit: z.number().int().min(1).max(100).default(20),
    sort: z.enum(SORTS).optional().describe('Default `name`; a leading `-` sorts descending'),
  })
  .meta({ id: 'SearchRequest' })

export const ZMessage = z.object({ message: z.string() })

/** At least one field: an empty update is a mistake, not a no-op. */
export const atLeastOneField = (value: Record<string, unknown>) => Object.values(value).some((v) => v !== undefined)

/** A secured `/iam/v1` route's options: its permission check, and its schema tagged and secured like every other. */
export const secured = <S extends FastifySchema>(onRequest: (request: FastifyRequest) => Promise<void>, schema: S) => ({
  onRequest,
  schema: { tags: TAGS, security: STAFF_SECURITY, ...schema },
})
