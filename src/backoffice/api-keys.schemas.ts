import { z } from 'zod'
import type { ApiKeyRow } from '../domain/sellers/api-keys.repo.js'
import { isoOrNull, ZInstant } from './common.schemas.js'
import { iso } from '../platform/http/schemas.js'

export const ZSellerKeyParams = z.object({ id: z.uuid(), key_id: z.uuid() })

export const ZApiKey = z
  .object({
    id: z.uuid(),
    prefix: z.string().describe('The first characters of the key, to tell keys apart'),
    name: z.string().nullable(),
    created_at: ZInstant,
    last_used_at: ZInstant.nullable().describe('Updated at most once a minute'),
    revoked_at: ZInstant.nullable(),
  })
  .meta({ id: 'AdmApiKey' })

export const ZApiKeyCreated = ZApiKey.extend({
  api_key: z.string().describe('The key (`sk_...`), the storefront password. Shown this once: only its hash is kept.'),
}).meta({ id: 'AdmApiKeyCreated' })

export const ZCreateApiKey = z.strictObject({ name: z.string().trim().min(1).max(100).optional().describe('A label, e.g. where the key is used') })

export const toApiKey = (row: ApiKeyRow) => ({
  id: row.id,
  prefix: row.prefix,
  name: row.name,
  created_at: iso(row.createdAt),
  last_used_at: isoOrNull(row.lastUsedAt),
  revoked_at: isoOrNull(row.revokedAt),
})
