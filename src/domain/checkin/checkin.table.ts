import { sql } from 'drizzle-orm'
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { eventIdColumn } from '../catalog/events.table.js'
import { tickets } from '../orders/orders.table.js'
import { sellerIdColumn } from '../sellers/sellers.table.js'

export const SCAN_TYPES = ['entry', 'exit'] as const
export type ScanType = (typeof SCAN_TYPES)[number]

/**
 * Why a scan is refused (docs/door.md; `unpaid`: its order awaits payment or expired unpaid, 7.9);
 * `forced` scans record the one they overrode. No database constraint lists them: a new one needs
 * no migration.
 */
export const SCAN_REASONS = ['invalid', 'voided', 'unpaid', 'already_redeemed', 'product', 'invalid_time', 'ambiguous'] as const
export type ScanReason = (typeof SCAN_REASONS)[number]

/**
 * What a scan may be answered: a recorded reason; or, for a batch's scan, recording nothing:
 * `nonce_conflict` (it reused a nonce of this device for another request) or `invalid_scan` (it
 * is not valid on its own, e.g. it names a list the device cannot see).
 */
export const ANSWER_REASONS = [...SCAN_REASONS, 'nonce_conflict', 'invalid_scan'] as const
export type AnswerReason = (typeof ANSWER_REASONS)[number]

/**
 * A scanner at a gate. It is created with a pairing code (stored hashed, single use, 24 h) and
 * exchanges it once for its own token (stored hashed), which opens `/chk/v1` and nothing else.
 */
export const checkinDevices = pgTable(
  'checkin_devices',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    name: text().notNull(),
    /** The events it may scan, all of the seller's; null: every event, present and future. */
    eventIds: uuid().array(),
    /** HMAC of the pairing code until it is used; null after pairing. */
    pairingCodeHash: text(),
    pairingExpiresAt: timestamp({ withTimezone: true }),
    /** HMAC of the device token, set by pairing. */
    tokenHash: text(),
    pairedAt: timestamp({ withTimezone: true }),
    hardware: text(),
    software: text(),
    lastSeenAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('checkin_devices_seller_idx').on(t.sellerId, t.createdAt),
    uniqueIndex('checkin_devices_pairing_code_key').on(t.pairingCodeHash),
    uniqueIndex('checkin_devices_token_key').on(t.tokenHash),
  ],
)

/**
 * Who may enter through one door of an event: all its inventories or some, all variants or
 * some. Lists are independent: a ticket enters once per list.
 */
export const checkinLists = pgTable(
  'checkin_lists',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    eventId: eventIdColumn(),
    name: text().notNull(),
    /** Null: every inventory of the event. */
    inventoryIds: uuid().array(),
    /** Null: every variant, and tickets of the inventory itself. */
    variants: text().array(),
    allowMultipleEntries: boolean().notNull().default(false),
    allowEntryAfterExit: boolean().notNull().default(true),
    /**
     * Goes up whenever which tickets the list admits, or how, changes: a feed cursor of an older
     * revision starts the feed over, so that offline devices never judge by the old list.
     */
    revision: integer().notNull().default(1),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('checkin_lists_event_idx').on(t.eventId, t.createdAt), index('checkin_lists_seller_idx').on(t.sellerId)],
)

/**
 * Every scan, refused ones too. `answer` is what the device was told, so that the same device
 * and nonce get exactly that answer again. A successful scan that is annulled stays, with
 * `annulled_at`, and no longer counts.
 */
export const checkins = pgTable(
  'checkins',
  {
    id: uuid().primaryKey(),
    sellerId: sellerIdColumn(),
    /** The list it was judged on; null when it named none of the device's lists. */
    listId: uuid().references(() => checkinLists.id, { onDelete: 'cascade' }),
    deviceId: uuid()
      .notNull()
      .references(() => checkinDevices.id, { onDelete: 'cascade' }),
    /** The ticket scanned; null when the code named none the device may see. */
    ticketId: uuid().references(() => tickets.id, { onDelete: 'cascade' }),
    /** The ticket's identifier, or what was presented (cut to 128 characters) when it named none. */
    identifier: text().notNull(),
    type: text({ enum: SCAN_TYPES }).notNull(),
    successful: boolean().notNull(),
    /** Why it was refused, or, when forced, what it overrode. */
    reason: text({ enum: SCAN_REASONS }),
    forced: boolean().notNull().default(false),
    nonce: text(),
    /** SHA-256 of what was asked (code, lists, type): the same nonce with another request is a conflict. */
    requestSha256: text(),
    /** The earlier of the device's time and when the server received the scan: the order scans count in. */
    scannedAt: timestamp({ withTimezone: true }).notNull(),
    annulledAt: timestamp({ withTimezone: true }),
    answer: jsonb().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('checkins_device_nonce_key').on(t.deviceId, t.nonce),
    index('checkins_ticket_list_idx').on(t.ticketId, t.listId, t.scannedAt),
    index('checkins_list_created_idx').on(t.listId, t.createdAt),
    // A seller's check-ins in the order they were scanned: the check-ins export pages by it (docs/exports.md).
    index('checkins_seller_scanned_idx').on(t.sellerId, t.scannedAt, t.id),
    check('checkins_forced_check', sql`not ${t.forced} or ${t.successful}`),
  ],
)
