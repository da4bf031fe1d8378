import type { AuditActor } from '../audit/record-audit.js'
import { saveChanges } from '../audit/save-changes.js'
import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import { lockSellerById } from '../sellers/sellers.repo.js'
import { slugTaken, type EventFields } from './create-event.js'
import { withIds } from './event-rules.js'
import { sameVenue } from './show-times.js'
import { isSlugTaken, lockEventById, updateEventRow, type EventRow, type NewEventRow } from './events.repo.js'

export type UpdateEventOptions = Partial<EventFields> & { eventId: string; actor: AuditActor }

/**
 * Changes the fields given. A new title keeps the slug, so published links keep working; the
 * slug changes only when given. Attributes and images are replaced as lists. Every transition
 * between statuses is allowed.
 */
export const updateEvent = (db: Db, options: UpdateEventOptions) =>
  freeingTickets(db, async (tx, stock): Promise<EventRow> => {
    const current = await lockEventById(tx, options.eventId)
    if (!current) throw new AppError('not_found')
    const values: Partial<NewEventRow> = {}
    if (options.title !== undefined && options.title !== current.title) values.title = options.title
    if (options.description !== undefined && options.description !== current.description) values.description = options.description
    if (options.status !== undefined && options.status !== current.status) values.status = options.status
    if (options.source !== undefined && options.source !== current.source) values.source = options.source
    if (options.integrationId !== undefined && options.integrationId !== current.integrationId) values.integrationId = options.integrationId
    // Replaced whole; the scanners read it with their lists (GET /chk/v1/lists), the storefront with the event.
    if (options.venue !== undefined && !sameVenue(options.venue, current.venue)) values.venue = options.venue
    if (options.attributes !== undefined) {
      values.attributes = withIds(
        options.attributes,
        current.attributes.map((a) => a.id),
        'attributes',
      )
    }
    if (options.images !== undefined)
      values.images = withIds(
        options.images,
        current.images.map((i) => i.id),
        'images',
      )
    if (options.slug !== undefined && options.slug !== current.slug) {
      // The same lock event creation takes to choose a derived slug.
      await lockSellerById(tx, current.sellerId)
      if (await isSlugTaken(tx, current.sellerId, options.slug)) throw slugTaken()
      values.slug = options.slug
    }
    const event = await saveChanges(tx, {
      current,
      values,
      update: updateEventRow,
      actor: options.actor,
      action: 'adm.event.updated',
      target: 'event',
      data: values.status ? { status: values.status } : {},
    })
    // Published again: its inventories may sell again.
    if (values.status === 'published') stock.freed('*')
    return event
  }).catch((error: unknown) => {
    if (isUniqueViolation(error, 'events_seller_slug_key')) throw slugTaken()
    throw error
  })
