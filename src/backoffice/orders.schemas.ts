import { z } from 'zod'
import { ORDER_STATUSES } from '../domain/orders/orders.table.js'
import { pageOf, ZInstant, ZPageQuery } from '../platform/http/schemas.js'
import { ZOrder } from '../storefront/orders.schemas.js'

/** The storefront's Order plus what the back office needs to place it. */
export const ZAdmOrder = ZOrder.extend({ seller_id: z.uuid(), cancelled_at: ZInstant.nullable() }).meta({ id: 'AdmOrder' })

export const ZAdmOrderList = pageOf(ZAdmOrder).meta({ id: 'AdmOrderList' })

export const ZAdmOrderListQuery = ZPageQuery.extend({
  affiliate_code: z.string().min(1).max(64).optional().describe('Only orders placed under this affiliate code (case-insensitive)'),
  status: z.enum(ORDER_STATUSES).optional(),
})

export const ZOrderTicketParams = z.object({
  id: z.uuid(),
  identifier: z.string().min(1).max(64).describe('The ticket identifier, as the order lists it'),
})

export const ZOrderToken = z
  .object({ order_token: z.string().describe('Opens the order as `X-Order-Token` on /stf/v1 (with its seller’s Basic credentials); shown this once') })
  .meta({ id: 'OrderToken' })
