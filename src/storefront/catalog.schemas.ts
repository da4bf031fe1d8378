import { z } from 'zod'
import { SHOW_TIME_PATTERN } from '../domain/catalog/show-times.js'
import { pageOf, ZDate, ZDateInput, ZInstant, ZPageQuery } from '../platform/http/schemas.js'

export const ZEventImage = z.object({ id: z.uuid(), name: z.string(), credits: z.string(), mime_type: z.string(), url: z.url() }).meta({ id: 'EventImage' })

export const ZEventAttribute = z
  .object({ id: z.uuid(), name: z.string(), scope: z.string(), text: z.string(), type: z.string(), value: z.string() })
  .meta({ id: 'EventAttribute' })

export const ZVenue = z
  .object({
    name: z.string(),
    address: z.string().optional().describe('Street and number'),
    city: z.string().optional(),
    state: z.string().optional().describe('State or region, e.g. `SP`'),
    country: z.string().optional().describe('ISO 3166-1 alpha-2 code, e.g. `BR`'),
  })
  .describe('Where the event takes place; only `name` is always there')
  .meta({ id: 'Venue' })

/** A local time of day, `HH:MM`. */
export const ZTimeOfDay = z.string().regex(SHOW_TIME_PATTERN).meta({ example: '20:00' })

/** An inventory's show and doors times (docs/selling.md), as every answer that shows them says them. */
export const showTimeFields = {
  time: ZTimeOfDay.nullable().describe(
    "When the show starts on its date, `HH:MM` on the seller's clock (its time zone); null: not said. A show after midnight belongs to the day before",
  ),
  doors_time: ZTimeOfDay.nullable().describe(
    "When the doors open on its date, `HH:MM` on the seller's clock, never after `time`; null: not said. The gates admit its tickets from 2 hours " +
      'before it (from 00:00 of the date without it) until 06:00 of the next day',
  ),
}

export const ZEventPrice = z.object({ amount: z.number().int(), label: z.string().meta({ example: 'a partir de R$ 50,00' }) }).meta({ id: 'EventPrice' })

/** What a listed event and an event's detail both say first, in this order. */
const eventHeading = { id: z.uuid(), title: z.string(), slug: z.string(), description: z.string(), status: z.string() }

export const ZSellerEvent = z
  .object({
    ...eventHeading,
    integration_id: z.string().nullable(),
    updated_at: ZInstant,
    image: ZEventImage.nullable().describe('The first image of the event'),
    price: ZEventPrice.nullable().describe(
      "The lowest price among inventories dated on or after the seller's today (in the date window, if given) with tickets left; null when none is left",
    ),
    first_date: ZDate.nullable().describe("The first date of the event's inventories on or after the seller's today; null when none"),
    last_date: ZDate.nullable().describe("The last date of the event's inventories on or after the seller's today; null when none"),
    venue: ZVenue.nullable().describe('Where it takes place; null: not said'),
  })
  .meta({ id: 'SellerEvent' })

export const ZSellerEventList = pageOf(ZSellerEvent).meta({ id: 'SellerEventList' })

export const ZEventDetail = z
  .object({
    ...eventHeading,
    source: z.string(),
    integration_id: z.string().nullable(),
    updated_at: ZInstant,
    attributes: z.array(ZEventAttribute),
    images: z.array(ZEventImage),
    venue: ZVenue.nullable().describe('Where it takes place; null: not said'),
  })
  .meta({ id: 'EventDetail' })

export const ZAvailabilityResponse = z
  .object({
    data: z.array(
      z
        .object({
          date: ZDate,
          inventories: z.array(
            z
              .object({
                id: z.uuid(),
                name: z.string(),
                available: z.number().int(),
                price: z.number().int(),
                ...showTimeFields,
                variants: z
                  .array(
                    z
                      .object({
                        name: z.string().describe('Name it in a basket item’s `variant` to buy it'),
                        description: z.string(),
                        type: z.string(),
                        price: z.number().int().describe('Centavos per ticket: the variant’s own price, else the inventory’s'),
                      })
                      .meta({ id: 'AvailabilityVariant' }),
                  )
                  .describe('Ways to buy these tickets (e.g. half price); they share `available`'),
                seating: z
                  .object({ plan_id: z.uuid(), category: z.string() })
                  .nullable()
                  .describe('Reserved seating: the plan and category whose seats it sells (`available` counts its free seats); null: unseated'),
              })
              .meta({ id: 'AvailabilityInventory' }),
          ),
        })
        .meta({ id: 'AvailabilityDate' }),
    ),
  })
  .meta({ id: 'AvailabilityResponse' })

/** The longest availability range one call may ask for. */
export const MAX_AVAILABILITY_DAYS = 366

export const ZEventListQuery = ZPageQuery.extend({
  q: z.string().max(200).optional().describe('Title search, case-insensitive; `%` and `_` match themselves'),
  date_from: ZDateInput.optional().describe('Only events with an inventory on or after this date'),
  date_to: ZDateInput.optional().describe('Only events with an inventory on or before this date'),
  status: z.enum(['published', 'cancelled', 'finished']).default('published').describe('Drafts are never shown'),
}).refine((q) => !q.date_from || !q.date_to || q.date_from <= q.date_to, { path: ['date_to'], message: 'must not be before date_from' })

export const ZAvailabilityQuery = z.object({
  from: ZDateInput.optional().describe('First date (default today, UTC)'),
  to: ZDateInput.optional().describe(`Last date (default from + 90 days); at most ${MAX_AVAILABILITY_DAYS} days after from`),
})

export const ZIdOrSlugParams = z.object({ id_or_slug: z.string().min(1).max(200).describe('The event uuid or slug') })
export const ZEventIdParams = z.object({ id: z.uuid() })
