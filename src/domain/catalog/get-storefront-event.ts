import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { EventScope } from '../inventory/availability.js'
import { findVisibleEvent } from './catalog.repo.js'
import type { EventAttribute, EventImage, EventVenue } from './events.table.js'

export type GetStorefrontEventOptions = { sellerId: string; scope: EventScope; idOrSlug: { id: string } | { slug: string } }

export type EventDetailView = {
  id: string
  title: string
  slug: string
  description: string
  status: string
  source: string
  integration_id: string | null
  updated_at: string
  attributes: EventAttribute[]
  images: EventImage[]
  venue: EventVenue | null
}

/**
 * `EventDetail` by id or slug. Drafts and events outside the affiliate's scope are not found.
 * Slugs are lower case (SLUG_PATTERN), so one matches whatever the case it is asked in.
 */
export async function getStorefrontEvent(db: Db, { sellerId, scope, idOrSlug }: GetStorefrontEventOptions): Promise<EventDetailView> {
  const event = await findVisibleEvent(db, sellerId, scope, 'slug' in idOrSlug ? { slug: idOrSlug.slug.toLowerCase() } : idOrSlug)
  if (!event) throw new AppError('not_found')
  return {
    id: event.id,
    title: event.title,
    slug: event.slug,
    description: event.description,
    status: event.status,
    source: event.source,
    integration_id: event.integrationId,
    updated_at: event.updatedAt.toISOString(),
    attributes: event.attributes,
    images: event.images,
    venue: event.venue ?? null,
  }
}
