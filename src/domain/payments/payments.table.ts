import { sql } from 'drizzle-orm'
import { bigint, bigserial, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { PAYMENT_METHODS } from '../baskets/installment-plans.js'
import { inventories } from '../catalog/inventories.table.js'
import { orderItems, orders } from '../orders/orders.table.js'
import { sellerIdColumn } from '../sellers/sellers.table.js'
import { xid8 } from '../../platform/db/xid8.js'

/** Money the seller received for an order (docs/payments.md): at a paid checkout, or later with its provider's reference. */
export const payments = pgTable(
  'payments',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    orderId: uuid()
      .notNull()
      .references(() => orders.id),
    amount: bigint({ mode: 'number' }).notNull(),
    method: text({ enum: PAYMENT_METHODS }).notNull(),
    installments: integer().notNull(),
    /** The provider's reference: one payment per reference per order (a retry answers the first). Null: a checkout without one. */
    reference: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('payments_order_reference_key').on(t.orderId, t.reference),
    index('payments_order_idx').on(t.orderId, t.createdAt),
    check('payments_amount_check', sql`${t.amount} >= 0 and ${t.installments} >= 1`),
  ],
)

export const REFUND_STATUSES = ['pending', 'done'] as const

/** Money going back to the buyer: `pending` until the partner says its provider executed it, then `done`. */
export const refunds = pgTable(
  'refunds',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    orderId: uuid()
      .notNull()
      .references(() => orders.id),
    amount: bigint({ mode: 'number' }).notNull(),
    /** The identifiers of the tickets it paid for (voided when it was created). */
    tickets: jsonb().$type<string[]>().notNull().default([]),
    reason: text().notNull(),
    status: text({ enum: REFUND_STATUSES }).notNull().default('pending'),
    reference: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    doneAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    index('refunds_order_idx').on(t.orderId, t.createdAt),
    check('refunds_amount_check', sql`${t.amount} >= 1`),
    check('refunds_status_check', sql`(${t.status} = 'done') = (${t.doneAt} is not null)`),
  ],
)

export const TRANSACTION_KINDS = ['sale', 'void', 'payment', 'refund'] as const
export type TransactionKind = (typeof TRANSACTION_KINDS)[number]

/**
 * The ledger (docs/payments.md): what was sold, voided, paid and refunded, one row per change, written
 * in the transaction of the change. Append-only: sql/transactions_append_only.sql refuses UPDATE
 * and DELETE. `sale` and `void` rows carry tickets and their value (`amount = gross − discount +
 * interest`, signed alike, one row per order item); `payment` and `refund` rows carry money only.
 * Sales reports read nothing else.
 */
export const transactions = pgTable(
  'transactions',
  {
    id: uuid().primaryKey().defaultRandom(),
    /** The order of writing, within a transaction. */
    seq: bigserial({ mode: 'number' }).notNull(),
    /**
     * The transaction that wrote it: the listing pages by (xid, seq) below the oldest transaction
     * still running, so a row whose transaction commits after a later one's is never paged past.
     */
    xid: xid8().notNull().default(sql`pg_current_xact_id()`),
    sellerId: sellerIdColumn(),
    orderId: uuid()
      .notNull()
      .references(() => orders.id),
    kind: text({ enum: TRANSACTION_KINDS }).notNull(),
    amount: bigint({ mode: 'number' }).notNull(),
    /** A count of tickets: + on a sale, − on a void, 0 on money. */
    tickets: integer().notNull(),
    gross: bigint({ mode: 'number' }).notNull(),
    discount: bigint({ mode: 'number' }).notNull(),
    interest: bigint({ mode: 'number' }).notNull(),
    paymentMethod: text({ enum: PAYMENT_METHODS }),
    affiliateCode: text(),
    couponCode: text(),
    /** The order item a sale or void counts (its inventory and variant are copied beside it). */
    orderItemId: uuid().references(() => orderItems.id),
    inventoryId: uuid().references(() => inventories.id),
    variant: text(),
    /** The payment or refund a money row records. */
    paymentId: uuid().references(() => payments.id),
    refundId: uuid().references(() => refunds.id),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('transactions_seq_key').on(t.seq),
    index('transactions_seller_xid_idx').on(t.sellerId, t.xid, t.seq),
    index('transactions_order_idx').on(t.orderId, t.seq),
    // Sales reports and statements read a seller's rows of a period (docs/reports.md).
    index('transactions_seller_created_idx').on(t.sellerId, t.createdAt),
    check('transactions_kind_check', sql`${t.kind} in ('sale', 'void', 'payment', 'refund')`),
    check(
      'transactions_shape_check',
      sql`case ${t.kind}
            when 'sale' then ${t.tickets} > 0 and ${t.amount} = ${t.gross} - ${t.discount} + ${t.interest} and ${t.amount} >= 0
                             and ${t.orderItemId} is not null and ${t.paymentId} is null and ${t.refundId} is null
            when 'void' then ${t.tickets} < 0 and ${t.amount} = ${t.gross} - ${t.discount} + ${t.interest} and ${t.amount} <= 0
                             and ${t.orderItemId} is not null and ${t.paymentId} is null and ${t.refundId} is null
            when 'payment' then ${t.tickets} = 0 and ${t.amount} > 0 and ${t.gross} = 0 and ${t.discount} = 0 and ${t.interest} = 0
                             and ${t.paymentId} is not null and ${t.refundId} is null
            when 'refund' then ${t.tickets} = 0 and ${t.amount} < 0 and ${t.gross} = 0 and ${t.discount} = 0 and ${t.interest} = 0
                             and ${t.refundId} is not null and ${t.paymentId} is null
          end`,
    ),
    // One money row per payment and per refund, whoever writes it.
    uniqueIndex('transactions_payment_key').on(t.paymentId),
    uniqueIndex('transactions_refund_key').on(t.refundId),
  ],
)
