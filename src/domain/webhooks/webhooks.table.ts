import { sql } from 'drizzle-orm'
import { bigint, boolean, index, integer, json, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { OUTBOX_STATUSES } from '../../platform/outbox/lease.js'
import { sellerIdColumn } from '../sellers/sellers.table.js'

export const WEBHOOK_EVENT_TYPES = [
  'order.pending',
  'order.confirmed',
  'order.expired',
  'order.cancelled',
  'refund.created',
  'refund.done',
  'ticket.voided',
  'ticket.first_access',
  'ticket.checked_in',
  'ticket.checkin_annulled',
  'ticket.holder_changed',
  'ticket.transferred',
  'export.done',
  'export.failed',
  'waiting_list.offered',
  'waiting_list.expired',
  'webhook.ping',
] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/**
 * Where a seller wants its events POSTed. The signing secret is never stored: it is the HMAC of
 * `secret_salt` under a key derived from the server's root secret (secrets.ts), made again when
 * a request is signed. During a rotation the previous salt keeps signing until its expiry.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    url: text().notNull(),
    /** Null: every event type, present and future. */
    events: text().array(),
    description: text(),
    active: boolean().notNull().default(true),
    /** Why the platform turned the endpoint off (it failed for 3 days); null when turned off by staff or on. */
    disabledReason: text(),
    secretSalt: text().notNull(),
    previousSecretSalt: text(),
    previousSecretExpiresAt: timestamp({ withTimezone: true }),
    /** Since when every delivery attempt has failed; null after a success. */
    failingSince: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_seller_idx').on(t.sellerId)],
)

/**
 * Something that happened, written in the transaction of the change itself, and only when an
 * active endpoint of the seller subscribes to it. `id` is what receivers deduplicate on; `seq`
 * orders the events of one `ordering_key` (an order id).
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: uuid().primaryKey(),
    seq: bigint({ mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    sellerId: sellerIdColumn(),
    type: text().notNull(),
    affiliateCode: text(),
    orderingKey: text(),
    /** The event's `data`, kept as text (json, not jsonb) so that it is sent with the API's own key order. */
    payload: json().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_events_created_idx').on(t.createdAt)],
)

/** One event to one endpoint: the outbox row the webhook worker leases, sends and retries. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid().primaryKey().defaultRandom(),
    eventId: uuid()
      .notNull()
      .references(() => webhookEvents.id, { onDelete: 'cascade' }),
    endpointId: uuid()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** The event's, copied so that the worker can hold back a later event of the same order cheaply. */
    orderingKey: text(),
    eventSeq: bigint({ mode: 'number' }).notNull(),
    status: text({ enum: OUTBOX_STATUSES }).notNull().default('pending'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** A worker's lease on the row while it talks to the receiver. */
    lockedUntil: timestamp({ withTimezone: true }),
    responseStatus: integer(),
    durationMs: integer(),
    lastError: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt),
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_order_idx').on(t.endpointId, t.orderingKey, t.eventSeq).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_event_idx').on(t.eventId),
  ],
)
