import { z } from 'zod'
import { ZPlanDocument } from '../domain/seating/plan-format.js'
import type { SeatingPlanRow, SeatingPlanSummary } from '../domain/seating/seating-plans.repo.js'
import { iso, ZInstant } from '../platform/http/schemas.js'

export const ZSeatingPlan = z
  .object({
    id: z.uuid(),
    seller_id: z.uuid(),
    name: z.string(),
    categories: z
      .array(z.object({ name: z.string(), color: z.string().describe("The plan's colour, or one of a fixed palette"), seats: z.number().int() }))
      .describe("The plan's categories, in its order, with how many seats each has"),
    seats: z.number().int().describe('How many seats the plan has'),
    created_at: ZInstant,
  })
  .meta({ id: 'SeatingPlan' })

export const ZSeatingPlanWithPlan = ZSeatingPlan.extend({ plan: ZPlanDocument.describe('The plan as uploaded') }).meta({ id: 'SeatingPlanWithPlan' })

export const toSeatingPlan = (row: SeatingPlanSummary) => ({
  id: row.id,
  seller_id: row.sellerId,
  name: row.name,
  categories: row.categories.map(({ name, color, seats }) => ({ name, color, seats })),
  seats: row.seats,
  created_at: iso(row.createdAt),
})

export const toSeatingPlanWithPlan = (row: SeatingPlanRow) => ({ ...toSeatingPlan(row), plan: row.plan as z.infer<typeof ZPlanDocument> })
