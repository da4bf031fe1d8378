import { sql } from 'drizzle-orm'
import { type AnyPgColumn, bigint, check, date, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { baskets } from '../baskets/baskets.table.js'
import { PAYMENT_METHODS } from '../baskets/installment-plans.js'
import { inventories } from '../catalog/inventories.table.js'
import { coupons } from '../coupons/coupons.table.js'
import { customers } from '../customers/customers.table.js'
import { ticketSigningKeys } from '../checkin/ticket-keys.table.js'
import { affiliates } from '../sellers/affiliates.table.js'
import { sellerIdColumn } from '../sellers/sellers.table.js'
import { xid8 } from '../../platform/db/xid8.js'
import type { Seat } from '../inventory/inventory.repo.js'

/** An order's life (docs/payments.md); which change may happen in which status is decided in order-states.ts. */
export const ORDER_STATUSES = ['pending', 'confirmed', 'expired', 'cancelled'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]

/** How an order came to be: a checked-out basket, or a ticket given to its recipient (docs/transfers.md). */
export const ORDER_SOURCES = ['checkout', 'transfer'] as const
export type OrderSource = (typeof ORDER_SOURCES)[number]

/** The ticket an order of a transfer was given from. */
export type TransferredFrom = { order_id: string; identifier: string }

export type CouponSnapshot = { code: string; type: 'percent' | 'fixed'; value: number }

/** A checked-out basket: its tickets are sold. Prices are copied, so later catalogue changes leave it as it was. */
export const orders = pgTable(
  'orders',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    /** One order per basket: a second checkout of the same basket cannot sell twice. Null: an order of a transfer. */
    basketId: uuid().references(() => baskets.id),
    affiliateId: uuid().references(() => affiliates.id),
    /** The affiliate's code when the order was placed. */
    affiliateCode: text(),
    /** Null: a guest's order (docs/selling.md), until an account of the seller verifies `buyerEmail`. */
    customerId: uuid().references(() => customers.id),
    /** Who bought: the customer's email and name at checkout, or the guest's `buyer`. Emails go here. */
    buyerEmail: text().notNull(),
    buyerName: text().notNull(),
    /** sha256 (hex) of the order token that opens a guest's order; null: none (a customer's order, or revoked). */
    orderTokenHash: text(),
    status: text({ enum: ORDER_STATUSES }).notNull().default('confirmed'),
    source: text({ enum: ORDER_SOURCES }).notNull().default('checkout'),
    /** An order of a transfer: the ticket it was given from. Null: a checkout's. */
    transferredFrom: jsonb().$type<TransferredFrom>(),
    /** The basket coupon, when one was redeemed. */
    couponId: uuid().references(() => coupons.id),
    coupon: jsonb().$type<CouponSnapshot>(),
    // Money in bigint: a basket of 50 inventories at the highest price overflows a 32-bit total.
    subtotal: bigint({ mode: 'number' }).notNull(),
    discount: bigint({ mode: 'number' }).notNull(),
    interest: bigint({ mode: 'number' }).notNull(),
    total: bigint({ mode: 'number' }).notNull(),
    /** Null: an order of a transfer, nothing paid. */
    paymentMethod: text({ enum: PAYMENT_METHODS }),
    installments: integer().notNull(),
    installmentAmount: bigint({ mode: 'number' }).notNull(),
    paymentReference: text(),
    /** A pending order's deadline: unpaid then, it expires (docs/payments.md); kept after payment. Null: paid at checkout. */
    paymentDueAt: timestamp({ withTimezone: true }),
    /** The sum of its payments, and of its done refunds (the ledger's money rows add up to their difference). */
    paidTotal: bigint({ mode: 'number' }).notNull().default(0),
    refundedTotal: bigint({ mode: 'number' }).notNull().default(0),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    cancelledAt: timestamp({ withTimezone: true }),
    expiredAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex('orders_basket_key').on(t.basketId),
    index('orders_seller_created_idx').on(t.sellerId, t.createdAt),
    index('orders_seller_customer_idx').on(t.sellerId, t.customerId, t.createdAt),
    // The seller's orders of an email: the guest orders an account joins when it verifies it, a guest's uses of a coupon.
    index('orders_seller_buyer_email_idx').on(t.sellerId, sql`lower(${t.buyerEmail})`),
    check('orders_total_check', sql`${t.total} = ${t.subtotal} - ${t.discount} + ${t.interest} and ${t.total} >= 0`),
    check('orders_status_check', sql`${t.status} in ('pending', 'confirmed', 'expired', 'cancelled')`),
    check(
      'orders_source_check',
      sql`${t.source} in ('checkout', 'transfer') and (${t.source} = 'transfer') = (${t.transferredFrom} is not null)
          and (${t.source} = 'transfer' or (${t.basketId} is not null and ${t.paymentMethod} is not null))`,
    ),
    check('orders_money_check', sql`${t.paidTotal} >= 0 and ${t.paidTotal} <= ${t.total} and ${t.refundedTotal} >= 0 and ${t.refundedTotal} <= ${t.paidTotal}`),
    // What the expiry sweep reads: the pending orders by deadline.
    index('orders_payment_due_idx').on(t.paymentDueAt).where(sql`${t.status} = 'pending'`),
  ],
)

export const orderItems = pgTable(
  'order_items',
  {
    id: uuid().primaryKey().defaultRandom(),
    orderId: uuid()
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    inventoryId: uuid()
      .notNull()
      .references(() => inventories.id),
    eventId: uuid().notNull(),
    date: date({ mode: 'string' }).notNull(),
    name: text().notNull(),
    /** The variant sold (its name at checkout); null: the inventory itself. */
    variant: text(),
    quantity: integer().notNull(),
    unitPrice: bigint({ mode: 'number' }).notNull(),
    discount: bigint({ mode: 'number' }).notNull(),
    total: bigint({ mode: 'number' }).notNull(),
    couponId: uuid().references(() => coupons.id),
    coupon: jsonb().$type<CouponSnapshot>(),
    /** Reserved seating: the seats sold, as they were at checkout (plans never change); null: unseated. */
    seats: jsonb().$type<Seat[]>(),
    position: integer().notNull(),
  },
  (t) => [index('order_items_order_idx').on(t.orderId, t.position), check('order_items_quantity_check', sql`${t.quantity} >= 1`)],
)

/** One ticket per unit sold. `identifier` is 128 random bits: unguessable, unique. */
export const tickets = pgTable(
  'tickets',
  {
    id: uuid().primaryKey().defaultRandom(),
    orderId: uuid()
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    orderItemId: uuid()
      .notNull()
      .references(() => orderItems.id, { onDelete: 'cascade' }),
    inventoryId: uuid()
      .notNull()
      .references(() => inventories.id),
    identifier: text().notNull(),
    firstAccessAt: timestamp({ withTimezone: true }),
    /** Set when the ticket is voided, alone or with its cancelled order; it is then back on sale. */
    voidedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /**
     * The transaction that last changed what a gate needs to know (issued, voided, checked in):
     * the scanners' ticket feed reads changes in this order (see checkin/ticket-feed.ts).
     */
    changedXid: xid8().notNull().default(sql`pg_current_xact_id()`),
    /**
     * The key that signs its code: the seller's active key when it was issued, or the active key
     * its own was retired for. Null: issued before keys were stored, signed by the seller's legacy key.
     */
    signingKeyId: uuid().references(() => ticketSigningKeys.id),
    /** The plan seat (its `seat_guid`) this ticket sits in; null: unseated. */
    seatId: text(),
    /**
     * Bumped by a holder change, a re-issue and a key's retirement: its code is signed with it
     * (claim `n`), and a code of an older version is refused at the gate (docs/transfers.md).
     */
    codeVersion: integer().notNull().default(0),
    /** Its holder when one was named after checkout; null: the order's buyer. */
    holderName: text(),
    holderDocument: text(),
    /** How many times the buyer changed its holder (`holder_changes_max`). */
    holderChanges: integer().notNull().default(0),
    /** It was given to someone else: this identifier and its codes are revoked, a new ticket holds its seat. */
    transferredAt: timestamp({ withTimezone: true }),
    /**
     * A ticket received by a transfer: the ticket sold (of a checkout's order), whose void or
     * refund voids this one too. Null: the ticket sold itself.
     */
    originTicketId: uuid().references((): AnyPgColumn => tickets.id),
  },
  (t) => [
    uniqueIndex('tickets_identifier_key').on(t.identifier),
    index('tickets_order_idx').on(t.orderId),
    index('tickets_inventory_changed_idx').on(t.inventoryId, t.changedXid, t.id),
    // A seat is sold to one valid ticket at most, whatever the code above it does.
    uniqueIndex('tickets_inventory_seat_key')
      .on(t.inventoryId, t.seatId)
      .where(sql`${t.seatId} is not null and ${t.voidedAt} is null and ${t.transferredAt} is null`),
    // The tickets a sold ticket was given on as: voided with it.
    index('tickets_origin_idx').on(t.originTicketId).where(sql`${t.originTicketId} is not null`),
    check('tickets_code_version_check', sql`${t.codeVersion} >= 0 and ${t.holderChanges} >= 0`),
  ],
)

/** One row per coupon per confirmed order: the per-customer limit counts these. */
export const couponRedemptions = pgTable(
  'coupon_redemptions',
  {
    id: uuid().primaryKey().defaultRandom(),
    couponId: uuid()
      .notNull()
      .references(() => coupons.id, { onDelete: 'cascade' }),
    orderId: uuid()
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    /** Null: a guest's order; its limit per customer counts by the order's buyer email. */
    customerId: uuid().references(() => customers.id),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('coupon_redemptions_coupon_order_key').on(t.couponId, t.orderId), index('coupon_redemptions_customer_idx').on(t.couponId, t.customerId)],
)

/** Every ticket download registration, kept for audit. */
export const ticketDownloads = pgTable(
  'ticket_downloads',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    orderId: uuid()
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    userId: uuid(),
    source: text(),
    identifiers: jsonb().$type<string[]>().notNull(),
    firstAccess: jsonb().$type<string[]>().notNull(),
    unknown: jsonb().$type<string[]>().notNull(),
    /** Identifiers of the order that were voided when asked for: never registered. */
    voided: jsonb().$type<string[]>().notNull().default([]),
    traceId: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('ticket_downloads_order_idx').on(t.orderId, t.createdAt)],
)

/** A transfer's life (docs/transfers.md): pending until the recipient accepts or declines, the sender cancels, or it expires. */
export const TRANSFER_STATUSES = ['pending', 'accepted', 'declined', 'cancelled', 'expired'] as const
export type TransferStatus = (typeof TRANSFER_STATUSES)[number]

/**
 * A ticket offered to someone else. Its token (emailed to the recipient) is stored as a keyed
 * hash only. A pending one whose `expiresAt` has passed reads as `expired`; at most one is pending per ticket.
 */
export const ticketTransfers = pgTable(
  'ticket_transfers',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    /** The ticket offered, and its order (the sender's). */
    ticketId: uuid()
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    orderId: uuid()
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    identifier: text().notNull(),
    recipientEmail: text().notNull(),
    recipientName: text().notNull(),
    tokenHash: text().notNull(),
    status: text({ enum: TRANSFER_STATUSES }).notNull().default('pending'),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    /** Accepted: the ticket and the order it became. */
    newTicketId: uuid().references(() => tickets.id, { onDelete: 'set null' }),
    newOrderId: uuid().references(() => orders.id, { onDelete: 'set null' }),
    endedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('ticket_transfers_token_key').on(t.tokenHash),
    uniqueIndex('ticket_transfers_pending_key').on(t.ticketId).where(sql`${t.status} = 'pending'`),
    index('ticket_transfers_order_idx').on(t.orderId, t.createdAt),
    check('ticket_transfers_status_check', sql`${t.status} in ('pending', 'accepted', 'declined', 'cancelled', 'expired')`),
  ],
)
