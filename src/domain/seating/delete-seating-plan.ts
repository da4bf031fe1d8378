import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { sqlState } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { deletePlanRow, isPlanInUse, lockPlanById } from './seating-plans.repo.js'

export type DeleteSeatingPlanOptions = { planId: string; actor: AuditActor }

const inUse = () => new AppError('seating_plan_in_use')

/**
 * Deletes a plan and its seats; 409 `seating_plan_in_use` while an inventory uses it. The check
 * reads committed inventories; one that takes the plan while the delete runs holds a key-share
 * lock on the plan's row, so the delete then fails on the foreign key (23503), and that failure
 * is the same 409: the database has the last word.
 */
export const deleteSeatingPlan = (db: Db, { planId, actor }: DeleteSeatingPlanOptions) =>
  db
    .transaction(async (tx) => {
      const plan = await lockPlanById(tx, planId)
      if (!plan) throw new AppError('not_found')
      if (await isPlanInUse(tx, planId)) throw inUse()
      await deletePlanRow(tx, planId)
      await recordAudit(tx, actor, {
        action: 'adm.seating_plan.deleted',
        target: { type: 'seating_plan', id: planId },
        sellerId: plan.sellerId,
        data: { name: plan.name },
      })
    })
    .catch((error: unknown) => {
      if (sqlState(error) === '23503') throw inUse()
      throw error
    })
