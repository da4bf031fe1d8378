import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { heldQuantities } from '../inventory/held.js'
import { availableOf, type EventScope } from '../inventory/availability.js'
import { findVisibleEvent, listInventoriesOfEvents } from './catalog.repo.js'
import type { InventoryVariant } from './inventories.table.js'

export type GetEventAvailabilityOptions = { sellerId: string; scope: EventScope; eventId: string; from: string; to: string }

/** A variant as buyers see it: its price resolved (its own, else the inventory's). */
type AvailabilityVariant = Omit<InventoryVariant, 'price'> & { price: number }

export type AvailabilityView = {
  data: { date: string; inventories: { id: string; name: string; available: number; price: number; variants: AvailabilityVariant[] }[] }[]
}

/**
 * `AvailabilityResponse`: per date in [from, to], each inventory with what is left. Only a
 * published event sells, and only on or after the seller's today: a cancelled or finished event,
 * and an inventory dated before today, show 0.
 */
export async function getEventAvailability(db: Db, options: GetEventAvailabilityOptions): Promise<AvailabilityView> {
  const event = await findVisibleEvent(db, options.sellerId, options.scope, { id: options.eventId })
  if (!event) throw new AppError('not_found')
  const stock = await listInventoriesOfEvents(db, [event.id], { from: options.from, to: options.to })
  const held = await heldQuantities(
    db,
    stock.map((i) => i.id),
  )
  const byDate = new Map<string, AvailabilityView['data'][number]>()
  for (const inventory of stock) {
    let day = byDate.get(inventory.date)
    if (!day) {
      day = { date: inventory.date, inventories: [] }
      byDate.set(inventory.date, day)
    }
    day.inventories.push({
      id: inventory.id,
      name: inventory.name,
      available: event.status === 'published' && !inventory.past ? availableOf(inventory, held.get(inventory.id) ?? 0) : 0,
      price: inventory.price,
      variants: inventory.variants.map((variant) => ({ ...variant, price: variant.price ?? inventory.price })),
    })
  }
  return { data: [...byDate.values()] }
}
