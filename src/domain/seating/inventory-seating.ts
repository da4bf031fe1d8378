import { and, eq, ne, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { events } from '../catalog/events.table.js'
import { inventories } from '../catalog/inventories.table.js'
import { basketItems } from '../baskets/baskets.table.js'
import { tickets } from '../orders/orders.table.js'
import { seatingPlans } from './seating.table.js'

/** What an inventory sells of a plan: one category's seats (docs/seating.md). */
export type InventorySeating = { plan_id: string; category: string }

/** The seating an inventory is given, checked: its plan's id and category, and the capacity it makes (the category's seats). */
export type CheckedSeating = { planId: string; category: string; capacity: number }

/**
 * Checks the seating of an inventory on an event date (docs/seating.md), in the caller's transaction:
 * the plan must be the seller's (another's is answered like an unknown one: 404) and name the
 * category (400); on one event date every seated inventory uses the same plan, and each category
 * is sold by one inventory at most (409 seating_conflict). The event's row is locked first, so
 * that two inventories configured at once on one event are judged one after the other.
 */
export async function checkSeating(
  tx: Db,
  target: { sellerId: string; eventId: string; date: string; inventoryId?: string | undefined; seating: InventorySeating },
): Promise<CheckedSeating> {
  await tx.select({ id: events.id }).from(events).where(eq(events.id, target.eventId)).for('update')
  const [plan] = await tx
    .select({ id: seatingPlans.id, categories: seatingPlans.categories })
    .from(seatingPlans)
    .where(and(eq(seatingPlans.id, target.seating.plan_id), eq(seatingPlans.sellerId, target.sellerId)))
  if (!plan) throw new AppError('not_found', { message: 'No such seating plan', details: [{ path: 'seating.plan_id', message: 'no such seating plan' }] })
  const category = plan.categories.find((c) => c.name === target.seating.category)
  if (!category) {
    throw new AppError('validation_error', {
      details: [
        {
          path: 'seating.category',
          message: `the plan has no category "${target.seating.category}" (it has ${plan.categories.map((c) => c.name).join(', ')})`,
        },
      ],
    })
  }
  const others = await tx
    .select({ id: inventories.id, planId: inventories.seatingPlanId, category: inventories.seatingCategory })
    .from(inventories)
    .where(
      and(
        eq(inventories.eventId, target.eventId),
        eq(inventories.date, target.date),
        sql`${inventories.seatingPlanId} is not null`,
        target.inventoryId ? ne(inventories.id, target.inventoryId) : undefined,
      ),
    )
  const otherPlan = others.find((other) => other.planId !== plan.id)
  if (otherPlan) {
    throw new AppError('seating_conflict', {
      message: `Inventory ${otherPlan.id} sells seats of another plan on ${target.date}`,
      details: { inventory_id: otherPlan.id, plan_id: otherPlan.planId },
    })
  }
  const sameCategory = others.find((other) => other.category === category.name)
  if (sameCategory) {
    throw new AppError('seating_conflict', {
      message: `Inventory ${sameCategory.id} already sells category "${category.name}" on ${target.date}`,
      details: { inventory_id: sameCategory.id, category: category.name },
    })
  }
  return { planId: plan.id, category: category.name, capacity: category.seats }
}

/** Whether any basket ever held of the inventory, or any ticket was sold of it: its seating is then fixed (docs/seating.md). */
export async function seatingInUse(tx: Db, inventoryId: string): Promise<boolean> {
  const { rows } = await tx.execute<{ used: boolean }>(sql`
    select exists (select 1 from ${basketItems} where ${basketItems.inventoryId} = ${inventoryId})
        or exists (select 1 from ${tickets} where ${tickets.inventoryId} = ${inventoryId}) as used`)
  return Boolean(rows[0]?.used)
}

/** An inventory's seating as the API writes it. */
export const seatingOf = (row: { seatingPlanId: string | null; seatingCategory: string | null }): InventorySeating | null =>
  row.seatingPlanId === null || row.seatingCategory === null ? null : { plan_id: row.seatingPlanId, category: row.seatingCategory }
