import { z } from 'zod'
import { ZMoneyAmount, ZProviderReference } from './refunds.schemas.js'

/** A payment of an order (docs/payments.md): what the storefront and the back office send alike. */
export const ZPaymentBody = z
  .strictObject({
    amount: ZMoneyAmount.describe('Centavos: exactly what the order owes (`total − paid_total`), else 409 `amount_mismatch` with `details.outstanding`'),
    reference: ZProviderReference.describe(
      'The payment provider’s reference (a pix end-to-end id, a boleto’s number, a card capture id): the same again on this order answers the first payment',
    ),
    method: z.string().min(1).max(32).optional().describe('credit_card, pix or boleto (default: the order’s); another than the order’s is recorded as given'),
    installments: z.number().int().min(1).max(99).optional().describe('Default: the order’s for its own method, else 1'),
  })
  .meta({ id: 'PaymentRequest' })

export const PAYMENT_DESCRIPTION =
  'Records the money the partner received for an order. It confirms an order awaiting payment (`pending`): its tickets become `valid` with ' +
  'their codes, `order.confirmed` and the tickets’ email go out. 201 with the Payment; the same `reference` on this order again: 200 with the ' +
  'Payment it recorded. A new reference on a paid order: 409 `order_paid`; on a cancelled one: 409 `order_cancelled`; an amount other than what ' +
  'is owed: 409 `amount_mismatch` (`details.outstanding`). An expired order is reactivated when all of its tickets (and seats, and coupon uses) ' +
  'can be taken again under the sale rule at that moment; otherwise 409 `order_expired` and nothing is recorded: return the money at the provider.'
