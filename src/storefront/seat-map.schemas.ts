import { z } from 'zod'
import { ZDate, ZDateInput } from '../platform/http/schemas.js'
import { ZSeat } from './baskets.schemas.js'

export const ZSeatMapQuery = z.object({
  date: ZDateInput.optional().describe('The event’s date; may be left out when the event sells seats on one date only (else 400)'),
})

const MAX_HIGHLIGHT = 100

export const ZSeatMapSvgQuery = ZSeatMapQuery.extend({
  highlight: z
    .string()
    .max(10_000)
    .optional()
    .describe(`Seat ids to ring, comma-separated (at most ${MAX_HIGHLIGHT}); ids the map does not have are ignored`)
    .transform((value, ctx) => {
      const ids = (value ?? '')
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean)
      if (ids.length > MAX_HIGHLIGHT) ctx.addIssue({ code: 'custom', message: `at most ${MAX_HIGHLIGHT} seats` })
      return ids
    }),
})

export const ZMapSeat = ZSeat.extend({
  inventory_id: z.uuid().describe('The inventory that sells the seat'),
  status: z
    .enum(['free', 'taken', 'blocked', 'reserved'])
    .describe('taken: held by a basket or sold (the storefront never learns who); reserved: free, but held back for the waiting list (cannot be named)'),
}).meta({ id: 'MapSeat' })

export const ZSeatMap = z
  .object({
    event_id: z.uuid(),
    date: ZDate,
    plan_id: z.uuid().describe('The plan the seats are of (`GET /stf/v1/seating-plans/{id}`)'),
    seats: z.array(ZMapSeat).describe("Every seat the date's seated inventories sell, in the plan's order (zone, row, place in the row)"),
  })
  .meta({ id: 'SeatMap' })
