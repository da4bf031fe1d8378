import { z } from 'zod'
import { ERRORS, type ErrorCode } from '../errors.js'

const codes = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]]

/** The error envelope, for the OpenAPI document. */
export const ZErrorEnvelope = z
  .object({
    code: z.enum(codes),
    message: z.string(),
    trace_id: z.string(),
    details: z
      .union([
        z
          .array(z.object({ path: z.string(), message: z.string() }))
          .describe('validation_error, insufficient_inventory, not_found: what is wrong, field by field'),
        z
          .record(z.string(), z.unknown())
          .describe(
            'basket_checked_out: `{ order_id }`; price_changed: `{ expected_total, total, basket }` (the Basket as GET answers it); inventory_unavailable: `{ inventory_id }`; seat_unavailable, seat_orphan: `{ seats }` (seat ids); seats_not_together: `{ max_together }`',
          ),
      ])
      .optional(),
  })
  .meta({ id: 'Error' })

/** The error envelope for each listed status, for the OpenAPI document: `response: { 200: ZThing, ...errorResponses(400, 401) }`. */
export const errorResponses = <S extends number>(...statuses: S[]) =>
  Object.fromEntries(statuses.map((status) => [status, ZErrorEnvelope])) as Record<S, typeof ZErrorEnvelope>

export const ZUuid = z.uuid()

/** `/{id}` of a resource. */
export const ZIdParams = z.object({ id: z.uuid() })

/** An instant as the API answers it: ISO 8601, UTC. */
export const iso = (date: Date) => date.toISOString()

/**
 * The dates and instants a request may carry: every date and date-time accepted anywhere
 * lies in this range. Year 0 or 9999 is no one's booking, and beyond PostgreSQL's and
 * JavaScript's comfortable range they failed in the database instead of in validation.
 */
export const DATE_RANGE = { min: '1900-01-01', max: '2199-12-31' } as const
const INSTANT_RANGE = { min: `${DATE_RANGE.min}T00:00:00Z`, max: `${DATE_RANGE.max}T23:59:59.999Z` } as const
const FIRST_MS = Date.parse(INSTANT_RANGE.min)
const LAST_MS = Date.parse(INSTANT_RANGE.max)
const OUT_OF_RANGE = `must lie between ${DATE_RANGE.min} and ${DATE_RANGE.max}`
const DAY_SHAPE = /^\d{4}-\d{2}-\d{2}$/

/**
 * The calendar days of the years 1900..2199 as a regular expression, for the OpenAPI document
 * (a client's validator, an SDK): the range and the calendar in one `pattern`. 1900 and 2100
 * are no leap years, 2000 is. A unit test holds it to the checks below.
 */
const DAY_IN_RANGE =
  '(?:(?:19|20|21)\\d{2}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))' +
  '|(?:(?:19|20|21)(?:0[48]|[2468][048]|[13579][26])|2000)-02-29)'
export const DATE_PATTERN = `^${DAY_IN_RANGE}$`
export const DATE_TIME_PATTERN = `^${DAY_IN_RANGE}T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)$`

/**
 * A calendar date in a request (query or body): `YYYY-MM-DD` within DATE_RANGE, else 400.
 * The OpenAPI document shows the range as `pattern` and as `x-formatMinimum` / `x-formatMaximum`.
 */
export const ZDateInput = z.iso
  .date()
  // A malformed date is refused by the format check alone, without a second message.
  .refine((day) => !DAY_SHAPE.test(day) || (day >= DATE_RANGE.min && day <= DATE_RANGE.max), OUT_OF_RANGE)
  .meta({
    pattern: DATE_PATTERN,
    'x-formatMinimum': DATE_RANGE.min,
    'x-formatMaximum': DATE_RANGE.max,
    description: `\`YYYY-MM-DD\`, ${DATE_RANGE.min} to ${DATE_RANGE.max}`,
  })

/**
 * An instant in a request: ISO 8601 with `Z` or an offset, within DATE_RANGE once in UTC, else
 * 400 (the document's `pattern` bounds the date as written; an offset may move it a day).
 */
export const ZInstantInput = z.iso
  .datetime({ offset: true })
  .refine((value) => {
    const ms = Date.parse(value)
    return Number.isNaN(ms) || (ms >= FIRST_MS && ms <= LAST_MS)
  }, OUT_OF_RANGE)
  .meta({
    pattern: DATE_TIME_PATTERN,
    'x-formatMinimum': INSTANT_RANGE.min,
    'x-formatMaximum': INSTANT_RANGE.max,
    description: `ISO 8601 with \`Z\` or an offset, ${INSTANT_RANGE.min} to ${INSTANT_RANGE.max}`,
  })

/** A calendar date in a response: `YYYY-MM-DD`. */
export const ZDate = z.iso.date()

/** An instant in a response: ISO 8601, UTC. */
export const ZInstant = z.iso.datetime()

/** `page` (1-based) and `limit` (1..100, default 20), as every list takes them. */
export const ZPageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
})
export type TPageQuery = z.infer<typeof ZPageQuery>

export const ZPageMeta = z
  .object({
    count: z.number().int(),
    limit: z.number().int(),
    page: z.number().int(),
    total: z.number().int(),
  })
  .meta({ id: 'PaginationMeta' })

export const pageOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: ZPageMeta })

export function pageMeta(query: TPageQuery, count: number, total: number) {
  return { count, limit: query.limit, page: query.page, total }
}
