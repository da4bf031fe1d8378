import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findPlanById, type SeatingPlanRow } from './seating-plans.repo.js'

/** A plan by id, with its document (back office); 404 when there is none. */
export async function getSeatingPlan(db: Db, planId: string): Promise<SeatingPlanRow> {
  const plan = await findPlanById(db, planId)
  if (!plan) throw new AppError('not_found')
  return plan
}
