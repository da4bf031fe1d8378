import { index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { sellerIdColumn } from '../sellers/sellers.table.js'

export const EVENT_STATUSES = ['draft', 'published', 'cancelled', 'finished'] as const

export type EventAttribute = { id: string; name: string; scope: string; text: string; type: string; value: string }
/** Where the event takes place (docs/selling.md); only `name` is required. */
export type EventVenue = { name: string; address?: string | undefined; city?: string | undefined; state?: string | undefined; country?: string | undefined }
export type EventImage = { id: string; name: string; credits: string; mime_type: string; url: string }

export const events = pgTable(
  'events',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    title: text().notNull(),
    /** Unique per seller; derived from the title when not given. */
    slug: text().notNull(),
    description: text().notNull().default(''),
    status: text({ enum: EVENT_STATUSES }).notNull().default('draft'),
    source: text().notNull().default(''),
    integrationId: text(),
    attributes: jsonb().$type<EventAttribute[]>().notNull().default([]),
    images: jsonb().$type<EventImage[]>().notNull().default([]),
    /** Null: not said. */
    venue: jsonb().$type<EventVenue>(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('events_seller_slug_key').on(t.sellerId, t.slug), index('events_seller_status_idx').on(t.sellerId, t.status)],
)

/** The event a row belongs to: required, and the row goes when the event goes. */
export const eventIdColumn = () =>
  uuid()
    .notNull()
    .references(() => events.id, { onDelete: 'cascade' })
