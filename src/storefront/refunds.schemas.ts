import { z } from 'zod'

/** A payment provider's reference, of a payment or a refund: 1 to 255 characters. */
export const ZProviderReference = z.string().min(1).max(255)

/** An amount of money moved (a payment, a refund): whole centavos, at least 1. */
export const ZMoneyAmount = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)

export const ZConfirmRefundRequest = z
  .strictObject({
    reference: ZProviderReference.describe('The provider’s reference of the refund it executed'),
  })
  .meta({ id: 'ConfirmRefundRequest' })
