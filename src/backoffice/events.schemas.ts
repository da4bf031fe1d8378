import { z } from 'zod'
import { isUuidShaped, SLUG_MAX_LENGTH, SLUG_PATTERN } from '../domain/catalog/event-rules.js'
import type { EventRow } from '../domain/catalog/events.repo.js'
import { EVENT_STATUSES } from '../domain/catalog/events.table.js'
import { iso, ZPageQuery } from '../platform/http/schemas.js'
import { AT_LEAST_ONE, atLeastOneField, ZHttpUrl, ZInstant } from './common.schemas.js'
import { VENUE_LIMITS } from '../domain/catalog/show-times.js'
import { ZVenue } from '../storefront/catalog.schemas.js'

const ZStatus = z.enum(EVENT_STATUSES)

const ZKeepId = z.uuid().optional().describe('The id of an item the event already has, to keep it; absent: a new id')

const ZAttributeInput = z.strictObject({
  id: ZKeepId,
  name: z.string().trim().min(1).max(200),
  scope: z.string().max(100).default(''),
  text: z.string().max(5000).default(''),
  type: z.string().max(100).default(''),
  value: z.string().max(5000).default(''),
})

const ZImageInput = z.strictObject({
  id: ZKeepId,
  name: z.string().max(200).default(''),
  credits: z.string().max(500).default(''),
  mime_type: z
    .string()
    .regex(/^$|^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i, 'must be a media type such as image/jpeg')
    .max(100)
    .default(''),
  url: ZHttpUrl,
})

/** Each part but the name may be left out; a part given is not empty. */
const ZVenueInput = z
  .strictObject({
    name: z.string().trim().min(1).max(VENUE_LIMITS.name).describe(`The place, as buyers know it; 1..${VENUE_LIMITS.name} characters`),
    address: z.string().trim().min(1).max(VENUE_LIMITS.address).optional().describe(`Street and number; at most ${VENUE_LIMITS.address} characters`),
    city: z.string().trim().min(1).max(VENUE_LIMITS.city).optional().describe(`At most ${VENUE_LIMITS.city} characters`),
    state: z.string().trim().min(1).max(VENUE_LIMITS.state).optional().describe(`State or region, e.g. \`SP\`; at most ${VENUE_LIMITS.state} characters`),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO 3166-1 country code such as BR')
      .transform((code) => code.toUpperCase())
      .optional()
      .describe('ISO 3166-1 alpha-2 code, e.g. `BR` (stored upper case); tickets and emails print the country’s name in the seller’s language'),
  })
  .nullable()
  .describe('Where the event takes place: shown with the event, on its tickets (PDF), in the buyers’ emails and at the gates; null: not said')

const ZSlug = z
  .string()
  .max(SLUG_MAX_LENGTH)
  .regex(SLUG_PATTERN, 'must be lower-case letters and digits separated by single hyphens')
  .refine((slug) => !isUuidShaped(slug), 'must not look like an event id')
  .describe('Unique per seller (409 `already_exists`)')

const fields = {
  title: z.string().trim().min(1).max(200),
  description: z.string().max(20_000),
  status: ZStatus,
  source: z.string().max(100).describe('Where the event comes from, e.g. the system it was imported from'),
  integration_id: z.string().min(1).max(200).nullable().describe("The event's id in that system"),
  attributes: z.array(ZAttributeInput).max(100),
  images: z.array(ZImageInput).max(50),
  venue: ZVenueInput,
}

export const ZCreateEvent = z.strictObject({
  title: fields.title,
  slug: ZSlug.optional().describe('Unique per seller (409 `already_exists`); absent: derived from the title, with `-2`, `-3`... when taken'),
  description: fields.description.optional(),
  status: fields.status.optional().describe('Default `draft`; storefronts show `published` events only'),
  source: fields.source.optional(),
  integration_id: fields.integration_id.optional(),
  attributes: fields.attributes.optional(),
  images: fields.images.optional(),
  venue: fields.venue.optional(),
})

export const ZUpdateEvent = z
  .strictObject({
    title: fields.title.optional().describe('A new title keeps the slug'),
    slug: ZSlug.optional(),
    description: fields.description.optional(),
    status: fields.status.optional().describe('Any status may follow any other'),
    source: fields.source.optional(),
    integration_id: fields.integration_id.optional(),
    attributes: fields.attributes.optional().describe('Replaces the list; an item with the `id` of an existing attribute keeps it'),
    images: fields.images.optional().describe('Replaces the list; an item with the `id` of an existing image keeps it'),
    venue: fields.venue.optional().describe('Replaces the venue whole; null clears it; absent: unchanged'),
  })
  .refine(atLeastOneField, AT_LEAST_ONE)

export const ZEvent = z
  .object({
    id: z.uuid(),
    seller_id: z.uuid(),
    title: z.string(),
    slug: z.string(),
    description: z.string(),
    status: ZStatus,
    source: z.string(),
    integration_id: z.string().nullable(),
    attributes: z.array(z.object({ id: z.uuid(), name: z.string(), scope: z.string(), text: z.string(), type: z.string(), value: z.string() })),
    images: z.array(z.object({ id: z.uuid(), name: z.string(), credits: z.string(), mime_type: z.string(), url: z.url() })),
    venue: ZVenue.nullable().describe('Where it takes place; null: not said'),
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'AdmEvent' })

/** An event body in the service's terms. */
export const fromEventBody = <B extends z.output<typeof ZUpdateEvent>>({ integration_id, ...fields }: B) => ({ ...fields, integrationId: integration_id })

export const ZEventListQuery = ZPageQuery.extend({ status: ZStatus.optional() })

export const toEvent = (row: EventRow) => ({
  id: row.id,
  seller_id: row.sellerId,
  title: row.title,
  slug: row.slug,
  description: row.description,
  status: row.status,
  source: row.source,
  integration_id: row.integrationId,
  attributes: row.attributes.map(({ id, name, scope, text, type, value }) => ({ id, name, scope, text, type, value })),
  images: row.images.map(({ id, name, credits, mime_type, url }) => ({ id, name, credits, mime_type, url })),
  venue: row.venue ?? null,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
})
