import { z } from 'zod'
import { WAITING_ENTRY_STATUSES } from '../domain/waiting-list/waiting-list.table.js'
import type { WaitingEntryView } from '../domain/waiting-list/waiting-entry-view.js'
import { ZInstant } from '../platform/http/schemas.js'

// Offer tokens are 43 characters; the bound only keeps junk out.
const ZOfferToken = z.string().min(1).max(512)

export const ZJoinWaitingList = z.strictObject({
  inventory_id: z.uuid(),
  variant: z.string().min(1).max(200).nullish().describe('A variant name of the inventory: prices the offer'),
  quantity: z.number().int().min(1).max(20).describe("At most the seller's `waiting_list_max_quantity` (default 4) and the inventory's capacity"),
  email: z.email().max(254).describe('Where the offer is emailed; one live entry per email and inventory, compared without regard to case'),
  name: z.string().trim().min(1).max(200).nullish(),
})

export const ZOfferTokenBody = z.strictObject({ token: ZOfferToken.describe('The `token` of the offer email’s link') })

export const ZWaitingEntry = z
  .object({
    id: z.uuid(),
    inventory_id: z.uuid(),
    variant: z.string().nullable(),
    quantity: z.number().int(),
    email: z.string(),
    name: z.string().nullable(),
    priority: z.number().int().describe('Higher is served first; then who joined first'),
    status: z.enum(WAITING_ENTRY_STATUSES),
    position: z.number().int().nullable().describe('1-based place in the queue while waiting, else null'),
    offer_expires_at: ZInstant.nullable().describe('Until when an offer holds its tickets'),
    basket_id: z.uuid().nullable().describe('The basket of an accepted offer'),
    created_at: ZInstant,
  })
  .meta({ id: 'WaitingEntry' }) satisfies z.ZodType<WaitingEntryView>
