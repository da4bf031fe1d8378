import { z } from 'zod'
import { MAX_BASKET_ITEMS } from '../domain/baskets/basket-access.js'
import { PAYMENT_METHODS } from '../domain/baskets/installment-plans.js'
import { itemKey } from '../domain/baskets/variants.js'
import { COUPON_PROBLEMS } from '../domain/coupons/coupon-rules.js'
import { ZDate, ZInstant } from '../platform/http/schemas.js'

const MAX_QUANTITY = 20

/** The same inventory (and variant) twice in one request is ambiguous: refused. */
const distinctItems = (items: { inventory_id: string; variant?: string | null | undefined }[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>()
  items.forEach((item, n) => {
    const key = itemKey(item.inventory_id.toLowerCase(), item.variant)
    if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [n, 'inventory_id'], message: 'the same inventory and variant appear twice' })
    seen.add(key)
  })
}

const ZItemVariant = z
  .string()
  .min(1)
  .max(200)
  .nullable()
  .optional()
  .describe(
    'A variant of the inventory, by name (see AvailabilityVariant); its price applies and it shares the inventory’s tickets. Unknown: 400 `validation_error`',
  )

export const ZCreateBasketBody = z
  .strictObject({
    items: z
      .array(z.strictObject({ inventory_id: z.uuid(), variant: ZItemVariant, quantity: z.number().int().min(1).max(MAX_QUANTITY) }))
      .max(MAX_BASKET_ITEMS)
      .superRefine(distinctItems),
  })
  .meta({ id: 'CreateBasketRequest' })

export const ZChangeBasketItemsBody = z
  .strictObject({
    items: z
      .array(
        z.strictObject({
          inventory_id: z.uuid(),
          variant: ZItemVariant,
          quantity: z.number().int().min(0).max(MAX_QUANTITY).describe('0 removes the item'),
        }),
      )
      .min(1)
      .max(MAX_BASKET_ITEMS)
      .superRefine(distinctItems),
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

export const ZBasketCoupon = ZAppliedCoupon.extend({
  applicable: z.boolean().describe('Whether it discounts anything now; one that does not contributes 0 to the totals'),
  reason: z
    .enum(COUPON_PROBLEMS)
    .nullable()
    .describe(
      'When not applicable: the error code a checkout would refuse with (deactivated or expired: coupon_invalid, usage limit reached: coupon_exhausted)',
    ),
}).meta({ id: 'BasketCoupon' })

const itemFields = {
  id: z.uuid(),
  inventory_id: z.uuid(),
  event_id: z.uuid(),
  date: ZDate,
  name: z.string(),
  variant: z.string().nullable().describe('The variant bought (its name), or null for the inventory itself'),
  quantity: z.number().int(),
  unit_price: z.number().int().describe('The variant’s price when it has one, else the inventory’s'),
  discount: z.number().int().describe("The item coupon's discount plus this item's share of the basket coupon's (largest remainder, by item total)"),
  total: z.number().int().describe("quantity × unit_price − discount; the items' totals add up to the total"),
}

export const ZBasketItem = z
  .object({
    ...itemFields,
    coupon: ZBasketCoupon.nullable(),
    available: z
      .boolean()
      .describe('False when the basket could not hold or buy this item now (its event stopped selling, its tickets are gone): checkout would refuse it'),
  })
  .meta({ id: 'BasketItem' })

/** An item of an order: prices and the coupon as they were at checkout. */
export const ZOrderItem = z.object({ ...itemFields, coupon: ZAppliedCoupon.nullable() }).meta({ id: 'OrderItem' })

export const ZBasket = z
  .object({
    id: z.uuid(),
    status: z.enum(['open', 'checked_out', 'expired']),
    expires_at: ZInstant,
    affiliate_code: z.string().nullable(),
    customer_id: z.uuid().nullable(),
    order_id: z.uuid().nullable().describe('The order a checked-out basket became; a checked-out basket reads as it was sold'),
    items: z.array(ZBasketItem),
    coupon: ZBasketCoupon.nullable(),
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
          amount: z.number().int().describe('Each installment but the last'),
          last_amount: z.number().int().describe('The last installment: amount × (installments − 1) + last_amount = total, to the centavo'),
          total: z.number().int().describe('What the card is charged, interest included'),
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
