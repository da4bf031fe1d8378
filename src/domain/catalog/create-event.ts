import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { lockSellerById } from '../sellers/sellers.repo.js'
import { firstFreeSlug, slugify, withIds } from './event-rules.js'
import type { EventAttribute, EventImage, EventVenue } from './events.table.js'
import { insertEvent, isSlugTaken, slugsLike, type EventRow, type EventStatus } from './events.repo.js'

export type EventAttributeInput = Omit<EventAttribute, 'id'> & { id?: string | undefined }
export type EventImageInput = Omit<EventImage, 'id'> & { id?: string | undefined }

/** What an event is made of; on update, each may be left out. */
export type EventFields = {
  title: string
  /** Unique per seller; when absent on create, derived from the title (`-2`, `-3`... when taken). */
  slug?: string | undefined
  description?: string | undefined
  status?: EventStatus | undefined
  source?: string | undefined
  integrationId?: string | null | undefined
  /** An item naming the id of an attribute the event has keeps that id; the others get new ones. */
  attributes?: EventAttributeInput[] | undefined
  /** An item naming the id of an image the event has keeps that id; the others get new ones. */
  images?: EventImageInput[] | undefined
  /** Where it takes place; null: not said (docs/selling.md). */
  venue?: EventVenue | null | undefined
}

export type CreateEventOptions = EventFields & { sellerId: string; actor: AuditActor }

export const slugTaken = () => new AppError('already_exists', { message: 'The seller already has an event with this slug' })

/** Creates an event of a seller (a draft unless told otherwise); attributes and images get ids. */
export const createEvent = (db: Db, options: CreateEventOptions) =>
  db
    .transaction(async (tx): Promise<EventRow> => {
      const { sellerId, actor } = options
      // Serialises the seller's slug choices, so two events titled alike get -2 and -3, not a clash.
      if (!(await lockSellerById(tx, sellerId))) throw new AppError('not_found')
      let slug = options.slug
      if (slug === undefined) {
        const base = slugify(options.title)
        slug = firstFreeSlug(base, await slugsLike(tx, sellerId, base))
      } else if (await isSlugTaken(tx, sellerId, slug)) {
        throw slugTaken()
      }
      const event = await insertEvent(tx, {
        sellerId,
        title: options.title,
        slug,
        description: options.description ?? '',
        status: options.status ?? 'draft',
        source: options.source ?? '',
        integrationId: options.integrationId ?? null,
        attributes: withIds(options.attributes ?? [], [], 'attributes'),
        images: withIds(options.images ?? [], [], 'images'),
        venue: options.venue ?? null,
      })
      await recordAudit(tx, actor, {
        action: 'adm.event.created',
        target: { type: 'event', id: event.id },
        sellerId,
        data: { slug: event.slug, status: event.status },
      })
      return event
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error, 'events_seller_slug_key')) throw slugTaken()
      throw error
    })
