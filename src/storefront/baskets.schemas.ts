import { z } from 'zod'
import { MAX_BASKET_ITEMS } from '../domain/baskets/basket-access.js'
import { PAYMENT_METHODS } from '../domain/baskets/installment-plans.js'
import { ZDate, ZInstant } from '../platform/http/schemas.js'

const MAX_QUANTITY = 20

/** The same inventory twice in one request is ambiguous: refused. */
const distinctInventories = (items: { inventory_id: string }[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>()
  items.forEach((item, n) => {
    const id = item.inventory_id.toLowerCase()
    if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [n, 'inventory_id'], message: 'the same inventory appears twice' })
    seen.add(id)
  })
}

export const ZCreateBasketBody = z
  .strictObject({
    items: z
      .array(z.strictObject({ inventory_id: z.uuid(), quantity: z.number().int().min(1).max(MAX_QUANTITY) }))
      .max(MAX_BASKET_ITEMS)
      .superRefine(distinctInventories),
  })
  .meta({ id: 'CreateBasketRequest' })

export const ZChangeBasketItemsBody = z
  .strictObject({
    items: z
      .array(
        z.strictObject({
          inventory_id: z.uuid(),
          quantity: z.number().int().min(0).max(MAX_QUANTITY).describe('0 removes the item'),
        }),
      )
      .min(1)
      .max(MAX_BASKET_ITEMS)
      .superRefine(distinctInventories),
  })
  .meta({ id: 'ChangeBasketItemsRequest' })

export const ZCouponBody = z.strictObject({ code: z.string().trim().min(1).max(64) }).meta({ id: 'ApplyCouponRequest' })

export const ZInstallmentsBody = z
  .strictObject({
    payment_method: z
      .string()
      .min(1)
      .max(32)
      .describe(`One of ${PAYMENT_METHODS.join(', ')}; others: 422 unsupported_payment_method`),
  })
  .meta({ id: 'InstallmentsRequest' })

export const ZAppliedCoupon = z.object({ code: z.string(), type: z.enum(['percent', 'fixed']), value: z.number().int() }).meta({ id: 'AppliedCoupon' })

export const ZBasketItem = z
  .object({
    id: z.uuid(),
    inventory_id: z.uuid(),
    event_id: z.uuid(),
    date: ZDate,
    name: z.string(),
    quantity: z.number().int(),
    unit_price: z.number().int(),
    discount: z.number().int(),
    total: z.number().int(),
    coupon: ZAppliedCoupon.nullable(),
  })
  .meta({ id: 'BasketItem' })

export const ZBasket = z
  .object({
    id: z.uuid(),
    status: z.enum(['open', 'checked_out', 'expired']),
    expires_at: ZInstant,
    affiliate_code: z.string().nullable(),
    customer_id: z.uuid().nullable(),
    items: z.array(ZBasketItem),
    coupon: ZAppliedCoupon.nullable(),
    totals: z.object({ subtotal: z.number().int(), discount: z.number().int(), total: z.number().int() }),
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'Basket' })

export const ZInstallments = z
  .object({
    payment_method: z.string(),
    total: z.number().int(),
    plans: z.array(
      z
        .object({
          installments: z.number().int(),
          amount: z.number().int(),
          total: z.number().int(),
          interest: z.number().int(),
          monthly_rate: z.number(),
        })
        .meta({ id: 'InstallmentPlan' }),
    ),
  })
  .meta({ id: 'Installments' })

export const ZBasketParams = z.object({ id: z.uuid() })
export const ZBasketItemParams = z.object({ id: z.uuid(), item_id: z.uuid() })

export const ZIdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe('Repeats with the same key and body within 24 h replay the first answer; another body: 409 idempotency_conflict'),
})
