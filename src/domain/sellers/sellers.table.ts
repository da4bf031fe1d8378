import { boolean, doublePrecision, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { DEFAULT_SETTINGS, LOCALES, type PaymentMinutes } from './seller-settings.js'

export const SELLER_STATUSES = ['active', 'disabled'] as const

/** A partner selling under its own brand. Its settings shape baskets and installments. */
export const sellers = pgTable('sellers', {
  id: uuid().primaryKey().defaultRandom(),
  name: text().notNull(),
  /** Base of the links in customer emails: `{storefront_url}/verify-email?token=...`. */
  storefrontUrl: text().notNull(),
  status: text({ enum: SELLER_STATUSES }).notNull().default('active'),
  basketTtlSeconds: integer().notNull().default(DEFAULT_SETTINGS.basket_ttl_seconds),
  maxInstallments: integer().notNull().default(DEFAULT_SETTINGS.max_installments),
  interestFreeInstallments: integer().notNull().default(DEFAULT_SETTINGS.interest_free_installments),
  monthlyRate: doublePrecision().notNull().default(DEFAULT_SETTINGS.monthly_rate),
  minInstallmentAmount: integer().notNull().default(DEFAULT_SETTINGS.min_installment_amount),
  loginRequiresVerifiedEmail: boolean().notNull().default(DEFAULT_SETTINGS.login_requires_verified_email),
  /** IANA name; `seller_today()` (sql/seller_today.sql) reads it. */
  timezone: text().notNull().default(DEFAULT_SETTINGS.timezone),
  waitingListOfferMinutes: integer().notNull().default(DEFAULT_SETTINGS.waiting_list_offer_minutes),
  waitingListMaxQuantity: integer().notNull().default(DEFAULT_SETTINGS.waiting_list_max_quantity),
  /** The language of buyer emails (customer-emails.ts). */
  locale: text({ enum: LOCALES }).notNull().default(DEFAULT_SETTINGS.locale),
  /** Named seats that would strand a single seat are refused (409 seat_orphan) rather than held. */
  seatingNoOrphans: boolean().notNull().default(DEFAULT_SETTINGS.seating_no_orphans),
  /** How long an order awaiting payment keeps its tickets, per payment method (docs/payments.md). */
  paymentMinutes: jsonb().$type<PaymentMinutes>().notNull().default(DEFAULT_SETTINGS.payment_minutes),
  /** The buyer's withdrawal (docs/payments.md): days after the purchase (0: off), and hours before the earliest ticket's date it closes. */
  withdrawalDays: integer().notNull().default(DEFAULT_SETTINGS.withdrawal_days),
  withdrawalCutoffHours: integer().notNull().default(DEFAULT_SETTINGS.withdrawal_cutoff_hours),
  /** Checkout without a customer token, with the buyer's email and name (docs/selling.md). */
  guestCheckout: boolean().notNull().default(DEFAULT_SETTINGS.guest_checkout),
  /** How many times the buyer may change a ticket's holder (docs/transfers.md); staff are not limited. */
  holderChangesMax: integer().notNull().default(DEFAULT_SETTINGS.holder_changes_max),
  /** Who hears about the seller's integration (e.g. a webhook endpoint turned off); null: nobody, it is logged. */
  contactEmail: text(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
})

/** The seller a tenant's row belongs to: required, and the row goes when the seller goes. */
export const sellerIdColumn = () =>
  uuid()
    .notNull()
    .references(() => sellers.id, { onDelete: 'cascade' })
