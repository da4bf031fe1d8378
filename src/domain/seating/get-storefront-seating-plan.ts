import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findPublishedPlan, type SeatingPlanRow } from './seating-plans.repo.js'

export type GetStorefrontSeatingPlanOptions = { sellerId: string; planId: string; scope: readonly string[] | null }

/**
 * A plan as a storefront may read it: one of the seller's, used by an inventory of a published
 * event (of the affiliate's events, under an affiliate). Any other plan, another seller's
 * included, is 404 like a missing one.
 */
export async function getStorefrontSeatingPlan(db: Db, { sellerId, planId, scope }: GetStorefrontSeatingPlanOptions): Promise<SeatingPlanRow> {
  const plan = await findPublishedPlan(db, sellerId, planId, scope)
  if (!plan) throw new AppError('not_found')
  return plan
}
