import { z } from 'zod'
import { LOCALES } from '../domain/sellers/seller-settings.js'

/** Minutes to pay, per method (docs/payments.md): the storefront's seller profile and the back office's settings answer the same. */
export const ZPaymentMinutes = z
  .object({ pix: z.number().int(), boleto: z.number().int(), credit_card: z.number().int() })
  .describe("How long an order awaiting payment keeps its tickets, in minutes, per method: its `payment_due_at` is checkout + the method's minutes")
  .meta({ id: 'PaymentMinutes' })

export const ZSellerProfile = z
  .object({
    id: z.uuid(),
    name: z.string(),
    storefront_url: z.string(),
    settings: z.object({
      basket_ttl_seconds: z.number().int(),
      max_installments: z.number().int(),
      interest_free_installments: z.number().int(),
      monthly_rate: z.number(),
      min_installment_amount: z.number().int(),
      timezone: z.string().describe('IANA time zone of the seller\'s "today": inventories dated before it are not sold'),
      waiting_list_offer_minutes: z.number().int().describe('How long a waiting list offer holds its tickets'),
      waiting_list_max_quantity: z.number().int().describe('Most tickets one waiting list entry may ask for'),
      locale: z.enum(LOCALES).describe('Language of what buyers read: the emails, the seat map and the PDF ticket'),
      payment_minutes: ZPaymentMinutes,
      withdrawal_days: z.number().int().describe('The buyer may withdraw from a paid order this many days after buying it (0: never)'),
      withdrawal_cutoff_hours: z.number().int().describe("…and no later than this many hours before the earliest ticket's date (its 00:00 in `timezone`)"),
      guest_checkout: z.boolean().describe('Checkout without `X-Customer-Token` takes `buyer: {email, name}` (false: it answers 401)'),
      holder_changes_max: z.number().int().describe('How many times the buyer may change a ticket’s holder (beyond it: 409 `holder_locked`; 0: never)'),
    }),
    affiliate: z.object({ code: z.string(), name: z.string() }).nullable(),
  })
  .meta({ id: 'SellerProfile' })
