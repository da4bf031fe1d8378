import { sql } from 'drizzle-orm'
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { baskets } from '../baskets/baskets.table.js'
import { inventories } from '../catalog/inventories.table.js'
import { affiliates } from '../sellers/affiliates.table.js'
import { sellerIdColumn } from '../sellers/sellers.table.js'
import { outboxColumns } from '../../platform/outbox/lease.js'

export const WAITING_ENTRY_STATUSES = ['waiting', 'offered', 'accepted', 'expired', 'declined', 'cancelled'] as const
export type WaitingEntryStatus = (typeof WAITING_ENTRY_STATUSES)[number]

/**
 * One buyer waiting for tickets of a sold-out inventory. The queue of an inventory is its entries
 * `waiting`, served by priority (higher first), then by `created_at` (sql/serve_waiting_list.sql).
 * An offer is a basket holding the tickets (`basket_id`) until `offer_expires_at`; the link's
 * token is kept only as its keyed hash.
 */
export const waitingEntries = pgTable(
  'waiting_entries',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    inventoryId: uuid()
      .notNull()
      .references(() => inventories.id, { onDelete: 'cascade' }),
    /** Prices the offer (a variant name of the inventory); null: the inventory itself. */
    variant: text(),
    quantity: integer().notNull(),
    email: text().notNull(),
    name: text(),
    /** Joined under `X-Affiliate-Code`: only that code addresses the entry, and its offer's basket is the affiliate's sale. */
    affiliateId: uuid().references(() => affiliates.id),
    /** The customer who joined signed in (X-Customer-Token); the offer's basket is theirs. */
    customerId: uuid(),
    priority: integer().notNull().default(0),
    status: text({ enum: WAITING_ENTRY_STATUSES }).notNull().default('waiting'),
    offeredAt: timestamp({ withTimezone: true }),
    offerExpiresAt: timestamp({ withTimezone: true }),
    basketId: uuid().references(() => baskets.id, { onDelete: 'set null' }),
    /** HMAC of the offer's accept/decline token; kept after use so a used token answers 401 and an expired one 410. */
    tokenHash: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // One live entry per address and inventory, whatever its letter case.
    uniqueIndex('waiting_entries_live_email_key').on(t.inventoryId, sql`lower(${t.email})`).where(sql`${t.status} in ('waiting', 'offered')`),
    index('waiting_entries_queue_idx').on(t.inventoryId, t.priority.desc(), t.createdAt, t.id).where(sql`${t.status} = 'waiting'`),
    index('waiting_entries_offered_idx').on(t.offerExpiresAt).where(sql`${t.status} = 'offered'`),
    uniqueIndex('waiting_entries_token_key').on(t.tokenHash),
    index('waiting_entries_seller_idx').on(t.sellerId, t.createdAt),
    check('waiting_entries_quantity_check', sql`${t.quantity} between 1 and 20`),
  ],
)

/**
 * Inventories to serve: an outbox of turns (leased like every outbox row, SKIP LOCKED, so every
 * process may serve), written by the database where tickets come back (sql/waiting_list_nudge.sql)
 * and by the periodic sweep. A served turn is deleted. A nudge adds no turn while one of the
 * inventory is pending and not yet leased (as committed: no unique index, so that a nudge never
 * waits for a transaction that serves, which may be waiting for the nudger's entry lock); a turn
 * written while another is being served is a new one, so tickets freed meanwhile are not missed.
 */
export const waitingListTurns = pgTable(
  'waiting_list_turns',
  {
    id: uuid().primaryKey().defaultRandom(),
    inventoryId: uuid()
      .notNull()
      .references(() => inventories.id, { onDelete: 'cascade' }),
    ...outboxColumns(),
    lastError: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('waiting_list_turns_pending_idx').on(t.inventoryId).where(sql`${t.status} = 'pending' and ${t.lockedUntil} is null`),
    index('waiting_list_turns_due_idx').on(t.status, t.nextAttemptAt),
  ],
)
