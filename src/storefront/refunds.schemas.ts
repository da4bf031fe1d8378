import { z } from 'zod'

/** The provider's reference of a refund: at most 255 characters, as a payment's. */
export const ZProviderReference = z.string().min(1).max(255)

export const ZConfirmRefundRequest = z
  .strictObject({
    reference: ZProviderReference.describe('The provider’s reference of the refund it executed'),
  })
  .meta({ id: 'ConfirmRefundRequest' })
