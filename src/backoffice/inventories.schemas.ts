import { z } from 'zod'
import type { CountedInventory } from '../domain/inventory/held.js'
import { iso, ZDate, ZDateInput, ZInstant } from '../platform/http/schemas.js'
import { seatingOf } from '../domain/seating/inventory-seating.js'
import { AT_LEAST_ONE, atLeastOneField, ZName } from './common.schemas.js'
import { doorsAfterShow, SHOW_TIME_PATTERN } from '../domain/catalog/show-times.js'
import { showTimeFields } from '../storefront/catalog.schemas.js'

const ZVariant = z.strictObject({
  name: ZName.describe('What a basket item names in `variant`; distinct within the inventory'),
  description: z.string().max(2000).default(''),
  type: z.string().max(100).default('').describe('e.g. `full`, `half` (meia-entrada)'),
  price: z.number().int().min(0).max(100_000_000).optional().describe('Centavos per ticket; absent: the inventory’s price'),
  checkin_attention: z.boolean().optional().describe('The gate checks something when it admits this variant, e.g. proof of a half-price right; default false'),
})

/** Buyers name a variant: two of one name would be ambiguous. */
const distinctNames = (variants: { name: string }[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>()
  variants.forEach((variant, n) => {
    if (seen.has(variant.name)) ctx.addIssue({ code: 'custom', path: [n, 'name'], message: 'two variants have this name' })
    seen.add(variant.name)
  })
}

const ZTimeInput = z.string().regex(SHOW_TIME_PATTERN, 'must be a time of day as HH:MM, 00:00 to 23:59').nullable()

/** Doors open before the show starts (or as it starts); when a change gives one of them only, the service checks it against the stored other. */
const doorsBeforeShow = (body: { time?: string | null | undefined; doors_time?: string | null | undefined }, ctx: z.RefinementCtx) => {
  if (doorsAfterShow(body.time ?? null, body.doors_time ?? null)) ctx.addIssue({ code: 'custom', path: ['doors_time'], message: 'must not be after time' })
}

const fields = {
  date: ZDateInput,
  name: ZName,
  price: z.number().int().min(0).max(100_000_000).describe('Centavos per ticket; 0 for free tickets'),
  capacity: z.number().int().min(0).max(1_000_000),
  variants: z.array(ZVariant).max(50).superRefine(distinctNames),
  waiting_list: z.boolean().describe('Buyers may join its waiting list when they cannot buy; default false'),
  checkin_attention: z.boolean().describe('The gate checks something when it admits these tickets (scans answer `attention: true`); default false'),
  transferable: z.boolean().describe('Its tickets may be given to someone else (POST /stf/v1/orders/{id}/tickets/{identifier}/transfers); default true'),
  transfer_closes_hours: z
    .number()
    .int()
    .min(0)
    .max(720)
    .describe('Transfers close this many hours before the ticket’s date (its 00:00, or its `time` when set, on the seller’s clock); 0..720, default 0'),
  seating: z
    .strictObject({ plan_id: z.uuid(), category: z.string().min(1).max(200) })
    .describe(
      'Reserved seating: the inventory sells exactly this category of the plan on its date, and its capacity is their number (send no `capacity`). ' +
        'On one event date all seated inventories use one plan, one inventory per category; fixed once a seat was held or sold (409 `seating_conflict`)',
    ),
  time: ZTimeInput.describe(
    "When the show starts on its date, `HH:MM` (00:00 to 23:59) on the seller's clock; null: not said. Shown with availability, on orders, tickets, emails and at the gates",
  ),
  doors_time: ZTimeInput.describe(
    "When the doors open on its date, `HH:MM` on the seller's clock, not after `time` (400 at `doors_time`); null: not said. The gates admit its " +
      'tickets from 2 hours before it (from 00:00 of the date without it) until 06:00 of the next day',
  ),
}

/** A seated inventory's capacity is its seats: sending both is ambiguous. */
const capacityOrSeating = (body: { capacity?: number | undefined; seating?: unknown }, ctx: z.RefinementCtx) => {
  if (body.capacity !== undefined && body.seating != null) ctx.addIssue({ code: 'custom', path: ['capacity'], message: 'send capacity or seating, not both' })
}

export const ZCreateInventory = z
  .strictObject({
    ...fields,
    capacity: fields.capacity.optional().describe('Required unless `seating` is sent'),
    variants: fields.variants.optional(),
    waiting_list: fields.waiting_list.optional(),
    checkin_attention: fields.checkin_attention.optional(),
    transferable: fields.transferable.optional(),
    transfer_closes_hours: fields.transfer_closes_hours.optional(),
    seating: fields.seating.optional(),
    time: fields.time.optional(),
    doors_time: fields.doors_time.optional(),
  })
  .superRefine(capacityOrSeating)
  .superRefine(doorsBeforeShow)
  .superRefine((body, ctx) => {
    if (body.capacity === undefined && body.seating === undefined)
      ctx.addIssue({ code: 'custom', path: ['capacity'], message: 'required unless seating is sent' })
  })

export const ZUpdateInventory = z
  .strictObject({
    date: fields.date.optional(),
    name: fields.name.optional(),
    price: fields.price.optional().describe('Applies to baskets priced from now on'),
    capacity: fields.capacity.optional().describe('Not below sold + held: 409 `insufficient_inventory`'),
    variants: fields.variants.optional().describe('Replaces the list'),
    waiting_list: fields.waiting_list.optional().describe('Off stops new joins; those already waiting are still served'),
    checkin_attention: fields.checkin_attention.optional(),
    transferable: fields.transferable.optional().describe('Off: no new transfer of its tickets; pending ones may still be accepted'),
    transfer_closes_hours: fields.transfer_closes_hours.optional(),
    seating: fields.seating.nullable().optional().describe('null: unseated from now on (its capacity stays until changed)'),
    time: fields.time.optional().describe('absent: unchanged; null: cleared. Moving it moves what the tickets show'),
    doors_time: fields.doors_time
      .optional()
      .describe(
        "absent: unchanged; null: cleared. Not after the show's time, sent or stored (400 at `doors_time`); moving it moves the gates' window of entry",
      ),
  })
  .refine(atLeastOneField, AT_LEAST_ONE)
  .superRefine(capacityOrSeating)
  .superRefine(doorsBeforeShow)

export const ZInventory = z
  .object({
    id: z.uuid(),
    event_id: z.uuid(),
    seller_id: z.uuid(),
    date: ZDate,
    name: z.string(),
    price: z.number().int(),
    capacity: z.number().int(),
    sold: z.number().int().describe('Tickets sold'),
    held: z.number().int().describe('Tickets held by open, unexpired baskets'),
    available: z.number().int().describe('capacity - sold - held, never below 0'),
    variants: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        type: z.string(),
        price: z.number().int().optional().describe('Absent: the inventory’s price'),
        checkin_attention: z.boolean(),
      }),
    ),
    waiting_list: z.boolean().describe('Buyers may join its waiting list'),
    checkin_attention: z.boolean().describe('The gate checks something when it admits these tickets'),
    transferable: z.boolean().describe('Its tickets may be given to someone else'),
    transfer_closes_hours: z.number().int().describe('Transfers close this many hours before the ticket’s date (or time)'),
    seating: z
      .object({ plan_id: z.uuid(), category: z.string() })
      .nullable()
      .describe('Reserved seating: the plan and category whose seats it sells; null: unseated'),
    ...showTimeFields,
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'AdmInventory' })

export const toInventory = (row: CountedInventory) => ({
  id: row.id,
  event_id: row.eventId,
  seller_id: row.sellerId,
  date: row.date,
  name: row.name,
  price: row.price,
  capacity: row.capacity,
  sold: row.sold,
  held: row.held,
  available: row.available,
  variants: row.variants.map(({ name, description, type, price, checkin_attention }) => ({
    name,
    description,
    type,
    ...(price === undefined ? {} : { price }),
    checkin_attention: checkin_attention ?? false,
  })),
  waiting_list: row.waitingList,
  checkin_attention: row.checkinAttention,
  transferable: row.transferable,
  transfer_closes_hours: row.transferClosesHours,
  seating: seatingOf(row),
  time: row.time,
  doors_time: row.doorsTime,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
})
