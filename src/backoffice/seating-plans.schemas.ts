import { z } from 'zod'
import type { FastifyRequest } from 'fastify'
import { checkPlanShape, ZPlanDocument } from '../domain/seating/plan-format.js'
import { isXmlText, XML_FORBIDDEN_MESSAGE } from '../domain/seating/xml-text.js'
import { AppError } from '../platform/errors.js'
import { ZName } from './common.schemas.js'

/** Plans are large: their routes take bodies up to 16 MiB (413 `payload_too_large` above). */
export const PLAN_BODY_LIMIT = 16 * 1024 * 1024

export const ZCreateSeatingPlan = z.strictObject({
  // Held to the plan's own texts (plan-format.ts), though only the back office shows it.
  name: ZName.refine(isXmlText, XML_FORBIDDEN_MESSAGE),
  plan: ZPlanDocument,
})

/**
 * Before the body's schema: a plan of the wrong shape is refused after its first problems
 * (`checkPlanShape`), not after an issue for each of its seats.
 */
export async function refuseMisshapenPlan(request: FastifyRequest) {
  const body = request.body as { plan?: unknown } | null | undefined
  if (typeof body !== 'object' || body === null || !('plan' in body)) return
  const details = checkPlanShape(body.plan)
  if (details.length > 0) throw new AppError('validation_error', { details })
}
