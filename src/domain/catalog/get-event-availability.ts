import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { ticketsLeft, type EventScope } from '../inventory/availability.js'
import { findVisibleEvent, listInventoriesOfEvents } from './catalog.repo.js'
import type { InventoryVariant } from './inventories.table.js'
import { seatingOf, type InventorySeating } from '../seating/inventory-seating.js'

export type GetEventAvailabilityOptions = { sellerId: string; scope: EventScope; eventId: string; from: string; to: string }

/** A variant as buyers see it: its price resolved (its own, else the inventory's). */
type AvailabilityVariant = Omit<InventoryVariant, 'price'> & { price: number }

export type AvailabilityView = {
  data: {
    date: string
    inventories: {
      id: string
      name: string
      available: number
      price: number
      time: string | null
      doors_time: string | null
      variants: AvailabilityVariant[]
      seating: InventorySeating | null
    }[]
  }[]
}

/**
 * `AvailabilityResponse`: per date in [from, to], each inventory with the tickets it still sells,
 * as the sale rule says (sql/sale_standing.sql): a cancelled or finished event, and an inventory
 * dated before the seller's today, show 0.
 */
export async function getEventAvailability(db: Db, options: GetEventAvailabilityOptions): Promise<AvailabilityView> {
  const event = await findVisibleEvent(db, options.sellerId, options.scope, { id: options.eventId })
  if (!event) throw new AppError('not_found')
  const stock = await listInventoriesOfEvents(db, [event.id], { from: options.from, to: options.to })
  const left = await ticketsLeft(
    db,
    options.sellerId,
    options.scope,
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
      available: left.get(inventory.id) ?? 0,
      price: inventory.price,
      time: inventory.time,
      doors_time: inventory.doorsTime,
      variants: inventory.variants.map((variant) => ({ ...variant, price: variant.price ?? inventory.price })),
      seating: seatingOf(inventory),
    })
  }
  return { data: [...byDate.values()] }
}
