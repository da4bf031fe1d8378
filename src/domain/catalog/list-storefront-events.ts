import type { Db } from '../../platform/db/database.js'
import { heldQuantities } from '../baskets/holds.repo.js'
import { availableOf, type EventScope } from './availability.js'
import { listEvents, listInventoriesOfEvents, type DateWindow, type EventStatus } from './catalog.repo.js'
import type { EventImage } from './events.table.js'
import { fromPrice } from './price-label.js'

export type ListStorefrontEventsOptions = {
  sellerId: string
  scope: EventScope
  /** Any status but draft; published when not asked for. */
  status: Exclude<EventStatus, 'draft'>
  q?: string | undefined
  window: DateWindow
  page: number
  limit: number
}

export type SellerEventView = {
  id: string
  title: string
  slug: string
  description: string
  status: string
  integration_id: string | null
  updated_at: string
  image: EventImage | null
  price: { amount: number; label: string } | null
}

/**
 * A page of `SellerEvent`s. `price` is the lowest price among the event's inventories (in the
 * date window, when one is given) that still have tickets left, or null when none has.
 */
export async function listStorefrontEvents(db: Db, options: ListStorefrontEventsOptions) {
  const { rows, total } = await listEvents(db, {
    sellerId: options.sellerId,
    scope: options.scope,
    status: options.status,
    q: options.q,
    window: options.window,
    limit: options.limit,
    offset: (options.page - 1) * options.limit,
  })
  const stock = await listInventoriesOfEvents(
    db,
    rows.map((e) => e.id),
    options.window,
  )
  const held = await heldQuantities(
    db,
    stock.map((i) => i.id),
  )
  const lowest = new Map<string, number>()
  for (const inventory of stock) {
    if (availableOf(inventory, held.get(inventory.id) ?? 0) <= 0) continue
    const current = lowest.get(inventory.eventId)
    if (current === undefined || inventory.price < current) lowest.set(inventory.eventId, inventory.price)
  }
  const data = rows.map(
    (event): SellerEventView => ({
      id: event.id,
      title: event.title,
      slug: event.slug,
      description: event.description,
      status: event.status,
      integration_id: event.integrationId,
      updated_at: event.updatedAt.toISOString(),
      image: event.images[0] ?? null,
      price: lowest.has(event.id) ? fromPrice(lowest.get(event.id)!) : null,
    }),
  )
  return { data, total }
}
