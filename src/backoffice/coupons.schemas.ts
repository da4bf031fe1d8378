import { z } from 'zod'
import { MAX_FIXED_VALUE } from '../domain/coupons/coupon-rules.js'
import type { CouponRow } from '../domain/coupons/coupons.repo.js'
import { COUPON_TYPES } from '../domain/coupons/coupons.table.js'
import { iso, ZPageQuery } from '../platform/http/schemas.js'
import { AT_LEAST_ONE, atLeastOneField, dateOrNull, isoOrNull, ZCode, ZInstant, ZInstantInput } from './common.schemas.js'

const limit = (description: string) => z.number().int().min(1).max(1_000_000_000).nullable().describe(description)

const fields = {
  code: ZCode.describe('Unique per seller, case-insensitive (409 `already_exists`)'),
  type: z.enum(COUPON_TYPES),
  value: z.number().int().min(1).max(MAX_FIXED_VALUE).describe('`percent`: a whole percentage 1..100; `fixed`: centavos, at least 1'),
  event_ids: z.array(z.uuid()).max(1000).describe('Events of the seller it covers; empty: all. An id that is not an event of this seller: 400.'),
  inventory_ids: z.array(z.uuid()).max(1000).describe('Inventories of the seller it covers; empty: all. An id that is not an inventory of this seller: 400.'),
  starts_at: ZInstantInput.nullable().describe('Valid from; null: already'),
  ends_at: ZInstantInput.nullable().describe('Valid until, after starts_at; null: no end'),
  max_uses: limit('Redemptions in all; null: no limit. Not below the uses so far.'),
  max_uses_per_customer: limit('Redemptions per customer; null: no limit'),
  min_subtotal: z.number().int().min(0).max(1_000_000_000).nullable().describe('Centavos the subtotal must reach; null: none'),
  active: z.boolean(),
}

export const ZCreateCoupon = z.strictObject({
  code: fields.code,
  type: fields.type,
  value: fields.value,
  event_ids: fields.event_ids.optional(),
  inventory_ids: fields.inventory_ids.optional(),
  starts_at: fields.starts_at.optional(),
  ends_at: fields.ends_at.optional(),
  max_uses: fields.max_uses.optional(),
  max_uses_per_customer: fields.max_uses_per_customer.optional(),
  min_subtotal: fields.min_subtotal.optional(),
  active: fields.active.optional().describe('Default true'),
})

export const ZUpdateCoupon = z
  .strictObject({
    code: fields.code.optional(),
    type: fields.type.optional(),
    value: fields.value.optional(),
    event_ids: fields.event_ids.optional().describe('Replaces the list; empty: all events'),
    inventory_ids: fields.inventory_ids.optional().describe('Replaces the list; empty: all inventories'),
    starts_at: fields.starts_at.optional(),
    ends_at: fields.ends_at.optional(),
    max_uses: fields.max_uses.optional(),
    max_uses_per_customer: fields.max_uses_per_customer.optional(),
    min_subtotal: fields.min_subtotal.optional(),
    active: fields.active.optional(),
  })
  .refine(atLeastOneField, AT_LEAST_ONE)

export const ZCoupon = z
  .object({
    id: z.uuid(),
    seller_id: z.uuid(),
    code: z.string(),
    type: z.enum(COUPON_TYPES),
    value: z.number().int(),
    event_ids: z.array(z.uuid()),
    inventory_ids: z.array(z.uuid()),
    starts_at: ZInstant.nullable(),
    ends_at: ZInstant.nullable(),
    max_uses: z.number().int().nullable(),
    max_uses_per_customer: z.number().int().nullable(),
    min_subtotal: z.number().int().nullable(),
    active: z.boolean(),
    uses: z.number().int().describe('Redemptions so far'),
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'AdmCoupon' })

/** A coupon body in the service's terms. */
export const fromCouponBody = <B extends z.output<typeof ZUpdateCoupon>>({
  event_ids,
  inventory_ids,
  starts_at,
  ends_at,
  max_uses,
  max_uses_per_customer,
  min_subtotal,
  ...fields
}: B) => ({
  ...fields,
  eventIds: event_ids,
  inventoryIds: inventory_ids,
  startsAt: dateOrNull(starts_at),
  endsAt: dateOrNull(ends_at),
  maxUses: max_uses,
  maxUsesPerCustomer: max_uses_per_customer,
  minSubtotal: min_subtotal,
})

export const ZCouponListQuery = ZPageQuery.extend({
  active: z.enum(['true', 'false']).optional().describe('Only active (`true`) or inactive (`false`) coupons'),
})

export const toCoupon = (row: CouponRow) => ({
  id: row.id,
  seller_id: row.sellerId,
  code: row.code,
  type: row.type,
  value: row.value,
  event_ids: row.eventIds,
  inventory_ids: row.inventoryIds,
  starts_at: isoOrNull(row.startsAt),
  ends_at: isoOrNull(row.endsAt),
  max_uses: row.maxUses,
  max_uses_per_customer: row.maxUsesPerCustomer,
  min_subtotal: row.minSubtotal,
  active: row.active,
  uses: row.uses,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
})
