import { z } from 'zod'
import type { ScopedAffiliate } from '../domain/sellers/affiliates.repo.js'
import { AT_LEAST_ONE, atLeastOneField, ZCode, ZInstant, ZName } from './common.schemas.js'
import { iso } from '../platform/http/schemas.js'

const ZEventScope = z
  .array(z.uuid())
  .min(1)
  .max(1000)
  .nullable()
  .describe('Events of the seller it may sell; null or absent: every event of the seller, present and future. An id that is not an event of this seller: 400.')

export const ZAffiliate = z
  .object({
    id: z.uuid(),
    seller_id: z.uuid(),
    code: z.string().describe('Sent by storefronts as `X-Affiliate-Code`'),
    name: z.string(),
    active: z.boolean(),
    event_ids: z.array(z.uuid()).nullable().describe('null: every event of the seller'),
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'AdmAffiliate' })

export const ZCreateAffiliate = z.strictObject({
  code: ZCode.describe('Unique per seller, case-insensitive; cannot be changed later'),
  name: ZName,
  event_ids: ZEventScope.optional(),
})

export const ZUpdateAffiliate = z
  .strictObject({
    name: ZName.optional(),
    active: z.boolean().optional().describe('false: its code is refused (400 invalid_affiliate) from the next storefront request on'),
    event_ids: ZEventScope.optional(),
  })
  .refine(atLeastOneField, AT_LEAST_ONE)

export const toAffiliate = (row: ScopedAffiliate) => ({
  id: row.id,
  seller_id: row.sellerId,
  code: row.code,
  name: row.name,
  active: row.active,
  event_ids: row.eventIds,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
})
