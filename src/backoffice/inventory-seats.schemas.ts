import { z } from 'zod'
import { ZPageQuery } from '../platform/http/schemas.js'
import { ZSeat } from '../storefront/baskets.schemas.js'

const SEAT_STATUSES = ['free', 'held', 'sold', 'blocked'] as const

export const ZInventorySeatsQuery = ZPageQuery.extend({
  status: z.enum(SEAT_STATUSES).optional().describe('Only the seats in this state'),
})

export const ZInventorySeat = ZSeat.extend({
  status: z.enum(SEAT_STATUSES),
  basket_id: z.uuid().nullable().describe('The basket holding the seat (held)'),
  order_id: z.uuid().nullable().describe('The order the seat is sold in (sold)'),
  identifier: z.string().nullable().describe('The identifier of the ticket sitting in it (sold)'),
}).meta({ id: 'InventorySeat' })

export const ZBlockSeats = z.strictObject({
  seats: z.array(z.string().min(1).max(200)).min(1).max(1000).describe('Seat ids (the plan’s seat_guid) of seats the inventory sells'),
  blocked: z.boolean().describe('true blocks the seats, false unblocks them'),
})

export const ZBlockedSeats = z.object({ data: z.array(ZSeat).describe("The seats named, in the plan's order") })
