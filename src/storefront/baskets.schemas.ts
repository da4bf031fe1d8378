import { z } from 'zod'
import { MAX_BASKET_ITEMS } from '../domain/baskets/basket-access.js'
import { PAYMENT_METHODS } from '../domain/baskets/installment-plans.js'
import { itemKey } from '../domain/baskets/variants.js'
import { COUPON_PROBLEMS } from '../domain/coupons/coupon-rules.js'
import { ZDate, ZInstant } from '../platform/http/schemas.js'
import { showTimeFields, ZVenue } from './catalog.schemas.js'

const MAX_QUANTITY = 20

type ItemRequest = { inventory_id: string; variant?: string | null | undefined; quantity?: number | undefined; seats?: string[] | undefined }

/**
 * The same inventory (and variant) twice in one request is ambiguous: refused. So is a seat named
 * twice (by one item or two of the same inventory), a quantity other than the number of seats
 * named, and an item with neither.
 */
const distinctItems = (items: ItemRequest[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>()
  const seats = new Set<string>()
  items.forEach((item, n) => {
    const key = itemKey(item.inventory_id.toLowerCase(), item.variant)
    if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [n, 'inventory_id'], message: 'the same inventory and variant appear twice' })
    seen.add(key)
    if (item.seats === undefined) {
      if (item.quantity === undefined) ctx.addIssue({ code: 'custom', path: [n, 'quantity'], message: 'give a quantity, or the seats' })
      return
    }
    if (item.quantity !== undefined && item.quantity !== item.seats.length) {
      ctx.addIssue({ code: 'custom', path: [n, 'quantity'], message: `must equal the number of seats (${item.seats.length})` })
    }
    item.seats.forEach((seat, m) => {
      const seatKey = `${item.inventory_id.toLowerCase()}\u0000${seat}`
      if (seats.has(seatKey)) ctx.addIssue({ code: 'custom', path: [n, 'seats', m], message: `seat ${seat} is named twice` })
      seats.add(seatKey)
    })
  })
}

const ZItemSeats = z
  .array(z.string().min(1).max(200))
  .min(1)
  .max(MAX_QUANTITY)
  .optional()
  .describe(
    'Reserved seating: exactly these seats (seat ids of the inventory’s plan); `quantity`, if sent, must equal their number. ' +
      'Without `seats`, a seated inventory holds `quantity` best-available seats. Taken: 409 `seat_unavailable`; on an unseated inventory: 400',
  )

const ZItemTogether = z
  .boolean()
  .optional()
  .describe(
    'Best available only, for the party (the best-available items of the inventory in the request): true (default) holds adjacent seats or answers 409 `seats_not_together`; false (on every item of the party) takes the best seats anywhere then',
  )

export const ZSeat = z
  .object({
    id: z.string().describe('The plan’s seat_guid'),
    zone: z.string(),
    row: z.string(),
    number: z.string(),
    category: z.string(),
  })
  .meta({ id: 'Seat' })

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
      .array(
        z.strictObject({
          inventory_id: z.uuid(),
          variant: ZItemVariant,
          quantity: z.number().int().min(1).max(MAX_QUANTITY).optional().describe('Required unless `seats` are named'),
          seats: ZItemSeats,
          together: ZItemTogether,
        }),
      )
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
          quantity: z.number().int().min(0).max(MAX_QUANTITY).optional().describe('0 removes the item; required unless `seats` are named'),
          seats: ZItemSeats,
          together: ZItemTogether,
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
  seats: z
    .array(ZSeat)
    .nullable()
    .describe('Reserved seating: the seats of this item (held, or sold); null: an unseated inventory, or a basket whose hold lapsed'),
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

/** An item of an order: prices and the coupon as they were at checkout; when and where its show is, as it is now. */
export const ZOrderItem = z
  .object({
    ...itemFields,
    coupon: ZAppliedCoupon.nullable(),
    time: showTimeFields.time.describe(
      "When the show starts on `date`, `HH:MM` on the seller's clock, as its inventory says now (a show moved shows moved); null: not said",
    ),
    doors_time: showTimeFields.doors_time,
    venue: ZVenue.nullable().describe('Where the event takes place, as the event says now; null: not said'),
  })
  .meta({ id: 'OrderItem' })

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
