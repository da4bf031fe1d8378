import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findSellerById } from '../sellers/sellers.repo.js'
import { checkPlan, type TPlanDocument } from './plan-format.js'
import { planSeats } from './plan-seats.js'
import { analyzePlanSeats, insertPlanRow, insertPlanSeats, type SeatingPlanRow } from './seating-plans.repo.js'

export type CreateSeatingPlanOptions = { sellerId: string; name: string; plan: TPlanDocument; actor: AuditActor }

/**
 * Stores a seller's plan as uploaded, with its seats one row each. The plan is checked and its
 * seats worked out before the database is asked anything (400 `validation_error` naming the
 * first problems); then the plan and all its seats are written in one transaction.
 */
export async function createSeatingPlan(db: Db, { sellerId, name, plan, actor }: CreateSeatingPlanOptions): Promise<SeatingPlanRow> {
  const details = checkPlan(plan)
  if (details.length > 0) throw new AppError('validation_error', { details })
  const { seats, categories } = planSeats(plan)
  const created = await db.transaction(async (tx) => {
    if (!(await findSellerById(tx, sellerId))) throw new AppError('not_found')
    const row = await insertPlanRow(tx, { sellerId, name, plan, categories, seats: seats.length })
    await insertPlanSeats(tx, row.id, seats)
    await recordAudit(tx, actor, {
      action: 'adm.seating_plan.created',
      target: { type: 'seating_plan', id: row.id },
      sellerId,
      data: { name, seats: seats.length },
    })
    return row
  })
  // Every hold on a seated inventory reads these rows (seat_standings.sql): without statistics on
  // them until autovacuum comes by, PostgreSQL planned a nested loop that read the holds again for
  // every seat (a 50,000-seat map took 0.6 to 2 s instead of 0.1 to 0.25). A sample, bounded in cost.
  await analyzePlanSeats(db)
  return created
}
