import { z } from 'zod'
import { ZPlanDocument } from '../domain/seating/plan-format.js'
import { ZName } from './common.schemas.js'

/** Plans are large: their routes take bodies up to 16 MiB (413 `payload_too_large` above). */
export const PLAN_BODY_LIMIT = 16 * 1024 * 1024

export const ZCreateSeatingPlan = z.strictObject({
  name: ZName,
  plan: ZPlanDocument,
})
