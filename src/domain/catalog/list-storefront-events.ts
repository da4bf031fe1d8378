import type { Db } from '../../platform/db/database.js'
import type { EventScope } from '../inventory/availability.js'
import { listEventPage, type DateWindow, type EventStatus } from './catalog.repo.js'
import type { EventImage, EventVenue } from './events.table.js'
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
  first_date: string | null
  last_date: string | null
  venue: EventVenue | null
}

/**
 * A page of `SellerEvent`s. `price` is the lowest price among the event's inventories dated on
 * or after the seller's today (and in the date window, when one is given) that still have
 * tickets left, or null when none has; `first_date` and `last_date` span those inventories.
 */
export async function listStorefrontEvents(db: Db, options: ListStorefrontEventsOptions) {
  const { rows, total } = await listEventPage(db, {
    sellerId: options.sellerId,
    scope: options.scope,
    status: options.status,
    q: options.q,
    window: options.window,
    limit: options.limit,
    offset: (options.page - 1) * options.limit,
  })
  const data = rows.map(
    (event): SellerEventView => ({
      id: event.id,
      title: event.title,
      slug: event.slug,
      description: event.description,
      status: event.status,
      integration_id: event.integrationId,
      updated_at: event.updatedAt.toISOString(),
      image: event.image,
      price: event.lowestPrice === null ? null : fromPrice(event.lowestPrice),
      first_date: event.firstDate,
      last_date: event.lastDate,
      venue: event.venue,
    }),
  )
  return { data, total }
}
