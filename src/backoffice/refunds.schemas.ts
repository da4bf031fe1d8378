import { z } from 'zod'
import { TRANSACTION_KINDS } from '../domain/payments/payments.table.js'
import { ZInstant, ZInstantInput } from '../platform/http/schemas.js'
import { ZMoneyAmount, ZProviderReference } from '../storefront/refunds.schemas.js'

/** The most tickets one refund may name (an order of many tickets is refunded in several, or whole). */
const MAX_REFUND_TICKETS = 500

export const ZRefundRequest = z
  .strictObject({
    amount: ZMoneyAmount.describe(
      'Centavos, at most what is left to refund: `paid_total − refunded_total −` pending refunds (else 409 `refund_exceeds_paid` with ' +
        '`details.refundable`). Need not be the tickets’ value: fees are the seller’s call',
    ),
    tickets: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(MAX_REFUND_TICKETS)
      .refine((identifiers) => new Set(identifiers).size === identifiers.length, 'must not name a ticket twice')
      .optional()
      .describe(
        'Identifiers of valid tickets of the order that it pays back: voided at once (back on sale, off the door’s list). One the order ' +
          'does not have: 404; one voided already: 409 `ticket_voided`. Left out: no ticket is voided, unless the refund is of everything ' +
          'left, which cancels the order',
      ),
    reason: z.string().trim().min(1).max(500).describe('Why, as the buyer and the partner read it'),
    reference: ZProviderReference.optional().describe('The provider’s reference of a refund executed already: `done` at once. Left out: `pending`'),
  })
  .meta({ id: 'RefundRequest' })

export const ZTransaction = z
  .object({
    id: z.uuid(),
    seller_id: z.uuid(),
    order_id: z.uuid(),
    kind: z
      .enum(TRANSACTION_KINDS)
      .describe('`sale`: tickets became valid (one row per item); `void`: tickets left a paid order; `payment`: money in; `refund`: money out, once done'),
    amount: z.number().int().describe('Centavos, signed: + sale and payment, − void and refund. For sale and void `gross − discount + interest`'),
    tickets: z.number().int().describe('A count: + on a sale, − on a void, 0 on money'),
    gross: z.number().int(),
    discount: z.number().int(),
    interest: z.number().int(),
    payment_method: z.string().nullable(),
    affiliate_code: z.string().nullable(),
    coupon_code: z.string().nullable(),
    inventory_id: z.uuid().nullable(),
    variant: z.string().nullable(),
    created_at: ZInstant,
  })
  .meta({ id: 'Transaction' })

export const ZTransactionPage = z
  .object({
    data: z.array(ZTransaction),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null: this page reached the end'),
  })
  .meta({ id: 'TransactionPage' })

export const ZTransactionQuery = z.object({
  from: ZInstantInput.optional().describe('Only rows written at or after this instant'),
  to: ZInstantInput.optional().describe('Only rows written before this instant'),
  order_id: z.uuid().optional().describe('Only the rows of this order'),
  cursor: z.string().min(1).max(64).optional().describe('The `next_cursor` of the page before; one this listing did not give: 400'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
})
