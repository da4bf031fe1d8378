import { z } from 'zod'
import type { ErrorDetail } from '../../platform/errors.js'
import { isXmlText, XML_FORBIDDEN_MESSAGE } from './xml-text.js'

/** More seats than this in one plan: 400 (docs/seating.md). */
export const MAX_PLAN_SEATS = 100_000

/** At most this many problems are named in one answer: a broken plan of 100,000 seats is not 100,000 details. */
const MAX_DETAILS = 50

/**
 * A text of the plan (its name, a zone's, a row's, a category's and its colour, a seat's number
 * and guid): the map, an XML document, draws it, so a character XML 1.0 forbids is refused here
 * with its path rather than breaking the map of every buyer (docs/seating.md).
 */
const ZText = z.string().max(200).refine(isXmlText, XML_FORBIDDEN_MESSAGE)

const ZPosition = z.looseObject({ x: z.number(), y: z.number() })

// The plan's levels, each with the level below left unchecked: `checkPlanShape` walks them one
// item at a time, `ZPlanDocument` nests them.
const ZSeat = z.looseObject({
  seat_guid: ZText.min(1).describe("Unique in the plan; the seat's id in every API answer"),
  seat_number: ZText,
  position: ZPosition,
  category: ZText.describe('The name of one of `categories`'),
})
const ZRowHead = z.looseObject({ row_number: ZText, position: ZPosition.optional(), seats: z.array(z.unknown()) })
const ZZoneHead = z.looseObject({ name: ZText.optional(), position: ZPosition, rows: z.array(z.unknown()), areas: z.array(z.unknown()).optional() })
const ZPlanHead = z.looseObject({
  name: ZText,
  categories: z
    .array(z.looseObject({ name: ZText.min(1), color: z.string().max(100).refine(isXmlText, XML_FORBIDDEN_MESSAGE).optional() }))
    .max(1000)
    .describe('Seat categories, each a price level an inventory may sell'),
  size: z
    .looseObject({ width: z.number().positive(), height: z.number().positive() })
    .optional()
    .describe('The drawing size in pixels; absent: the bounds of the seats'),
  zones: z.array(z.unknown()),
})

/**
 * A seat plan in pretix's JSON format, as its `seating-plan.schema.json` describes it. Every
 * object is loose: properties the schema names but this product does not read (`uuid`, `radius`,
 * `row_label`, `seat_label`, `start_direction`, `zone_id`, `areas`' shapes...) and any others are
 * kept as uploaded and ignored. Positions are relative: a seat stands at its zone's position plus
 * its row's (when the row has one) plus its own, which is how pretix places them
 * (`SeatingPlan.iter_all_seats`: `zpos + row.position + seat.position`).
 */
export const ZPlanDocument = ZPlanHead.extend({
  zones: z
    .array(ZZoneHead.extend({ rows: z.array(ZRowHead.extend({ seats: z.array(ZSeat) })) }))
    .describe('Zones of rows of seats, in the order best available ranks them'),
}).meta({
  id: 'PretixSeatingPlan',
  description:
    "A seating plan in pretix's JSON format (`seating-plan.schema.json`). Properties the schema does not name are kept and ignored. " +
    'A seat stands at zone position + row position + seat position.',
})

/**
 * The shape of a plan checked one item at a time, stopping at MAX_DETAILS problems, and its
 * number of seats counted before any seat is read: an upload of megabytes of wrong seats is
 * refused in the time of reading the first few, where a whole-document parse would record
 * (and answer) an issue for every field of every seat. Paths start at `plan`. Empty: the plan
 * has the shape of ZPlanDocument.
 */
export function checkPlanShape(plan: unknown): ErrorDetail[] {
  const details: ErrorDetail[] = []
  const level = <T>(schema: z.ZodType<T>, value: unknown, path: (string | number)[]): T | undefined => {
    const result = schema.safeParse(value)
    if (result.success) return result.data
    for (const issue of result.error.issues.slice(0, MAX_DETAILS - details.length)) {
      details.push({ path: ['plan', ...path, ...issue.path.map(String)].join('.'), message: issue.message })
    }
    return undefined
  }
  const head = level(ZPlanHead, plan, [])
  if (!head) return details
  const seats = (head.zones as { rows?: { seats?: unknown }[] }[]).reduce(
    (sum, zone) => sum + (Array.isArray(zone?.rows) ? zone.rows.reduce((n, row) => n + (Array.isArray(row?.seats) ? row.seats.length : 0), 0) : 0),
    0,
  )
  if (seats > MAX_PLAN_SEATS) return [{ path: 'plan.zones', message: `has ${seats} seats, more than ${MAX_PLAN_SEATS}` }]
  head.zones.forEach((value, z) => {
    const zone = details.length < MAX_DETAILS ? level(ZZoneHead, value, ['zones', z]) : undefined
    zone?.rows.forEach((value, r) => {
      const row = details.length < MAX_DETAILS ? level(ZRowHead, value, ['zones', z, 'rows', r]) : undefined
      row?.seats.forEach((value, s) => {
        if (details.length < MAX_DETAILS) level(ZSeat, value, ['zones', z, 'rows', r, 'seats', s])
      })
    })
  })
  return details
}

export type TPlanDocument = z.infer<typeof ZPlanDocument>

/**
 * What the shape alone cannot say: every seat names a category of the plan, no `seat_guid` nor
 * category name is used twice (the second one is named), the plan has seats, and no more than
 * MAX_PLAN_SEATS. Paths start at `plan`, as in the request body. Empty when the plan is sound.
 */
export function checkPlan(plan: TPlanDocument): ErrorDetail[] {
  const details: ErrorDetail[] = []
  const add = (path: string, message: string) => {
    if (details.length < MAX_DETAILS) details.push({ path: `plan.${path}`, message })
  }
  const categories = new Set<string>()
  plan.categories.forEach((category, i) => {
    if (categories.has(category.name)) add(`categories.${i}.name`, 'is the name of another category')
    categories.add(category.name)
  })
  const guids = new Set<string>()
  let seats = 0
  plan.zones.forEach((zone, z) => {
    zone.rows.forEach((row, r) => {
      row.seats.forEach((seat, s) => {
        seats++
        const at = `zones.${z}.rows.${r}.seats.${s}`
        if (!categories.has(seat.category)) add(`${at}.category`, 'is not the name of a category of the plan')
        if (guids.has(seat.seat_guid)) add(`${at}.seat_guid`, 'is the seat_guid of another seat')
        guids.add(seat.seat_guid)
      })
    })
  })
  if (seats === 0) add('zones', 'has no seats')
  if (seats > MAX_PLAN_SEATS) add('zones', `has ${seats} seats, more than ${MAX_PLAN_SEATS}`)
  return details
}
