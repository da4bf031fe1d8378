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
    commission_rate: z.number().min(0).max(1).describe('Its share of the net of coupons it sells, 0..1 (docs/reports.md: the statement)'),
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'AdmAffiliate' })

const ZCommissionRate = z
  .number()
  .min(0)
  .max(1)
  .refine((rate) => Math.abs(rate * 1e5 - Math.round(rate * 1e5)) < 1e-6, 'has at most 5 decimal places')
  .describe('Its share of the net of coupons it sells, 0..1 with at most 5 decimals (0.1 = 10 %); the statement computes its commission')

export const ZCreateAffiliate = z.strictObject({
  code: ZCode.describe('Unique per seller, case-insensitive; cannot be changed later'),
  name: ZName,
  event_ids: ZEventScope.optional(),
  commission_rate: ZCommissionRate.optional().describe('0..1, default 0'),
})

export const ZUpdateAffiliate = z
  .strictObject({
    name: ZName.optional(),
    active: z.boolean().optional().describe('false: its code is refused (400 invalid_affiliate) from the next storefront request on'),
    event_ids: ZEventScope.optional(),
    commission_rate: ZCommissionRate.optional(),
  })
  .refine(atLeastOneField, AT_LEAST_ONE)

export const toAffiliate = (row: ScopedAffiliate) => ({
  id: row.id,
  seller_id: row.sellerId,
  code: row.code,
  name: row.name,
  active: row.active,
  event_ids: row.eventIds,
  // numeric(6, 5) arrives as a string: exact, and a number at the edge.
  commission_rate: Number(row.commissionRate),
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
})
