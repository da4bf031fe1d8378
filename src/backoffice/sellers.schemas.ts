import { z } from 'zod'
import { DEFAULT_SETTINGS, DEFAULT_TIME_ZONE, LOCALES, PAYMENT_MINUTES_BOUNDS, SETTINGS_BOUNDS, settingsOf } from '../domain/sellers/seller-settings.js'
import type { SellerRow } from '../domain/sellers/sellers.repo.js'
import { SELLER_STATUSES } from '../domain/sellers/sellers.table.js'
import { iso, ZPageQuery } from '../platform/http/schemas.js'
import { ZPaymentMinutes } from '../storefront/seller.schemas.js'
import { AT_LEAST_ONE, atLeastOneField, ZHttpUrl, ZInstant, ZName } from './common.schemas.js'

const b = SETTINGS_BOUNDS
const intSetting = (bounds: { min: number; max: number }, description: string) => z.number().int().min(bounds.min).max(bounds.max).describe(description)

const d = DEFAULT_SETTINGS.payment_minutes
const methodMinutes = (method: string, byDefault: number) =>
  intSetting(PAYMENT_MINUTES_BOUNDS, `Minutes an order paid by ${method} awaits its payment (default ${byDefault})`).optional()

const ZPaymentMinutesInput = z
  .strictObject({
    pix: methodMinutes('pix', d.pix),
    boleto: methodMinutes('boleto', d.boleto),
    credit_card: methodMinutes('credit card', d.credit_card),
  })
  .describe(
    'How long a checkout with `await_payment` keeps its tickets before the unpaid order expires, per method: its `payment_due_at`. ' +
      'Only the methods given change; another method: 400 `validation_error`',
  )

export const ZSellerSettingsInput = z
  .strictObject({
    basket_ttl_seconds: intSetting(b.basket_ttl_seconds, 'How long a basket holds its tickets, renewed by each change (default 900)').optional(),
    max_installments: intSetting(b.max_installments, 'Most credit-card installments offered (default 12)').optional(),
    interest_free_installments: intSetting(
      b.interest_free_installments,
      'Plans up to this many installments carry no interest; at most max_installments (default 1)',
    ).optional(),
    monthly_rate: z
      .number()
      .min(b.monthly_rate.min)
      .max(b.monthly_rate.max)
      .describe('Monthly interest rate of longer plans, e.g. 0.0299 for 2.99% (default 0.0299)')
      .optional(),
    min_installment_amount: intSetting(b.min_installment_amount, 'Smallest installment offered, in centavos (default 500)').optional(),
    login_requires_verified_email: z
      .boolean()
      .describe(
        'A customer who never confirmed its email cannot sign in with its password (403 `email_not_verified`); ' +
          'it confirms through the verification email or signs in by magic link (default true)',
      )
      .optional(),
    timezone: z
      .string()
      .min(1)
      .max(64)
      .describe(`IANA time zone of the seller's "today": inventories dated before it are no longer listed or sold (default ${DEFAULT_TIME_ZONE})`)
      .optional(),
    waiting_list_offer_minutes: intSetting(
      b.waiting_list_offer_minutes,
      'How long a waiting list offer holds its tickets for the entry before they pass on (default 1440)',
    ).optional(),
    waiting_list_max_quantity: intSetting(
      b.waiting_list_max_quantity,
      `Most tickets one waiting list entry may ask for, and never more than the inventory's capacity (default ${DEFAULT_SETTINGS.waiting_list_max_quantity})`,
    ).optional(),
    locale: z
      .enum(LOCALES)
      .describe(
        `Language of what buyers read: every email (its times read in \`timezone\`), the seat map and the PDF ticket (default ${DEFAULT_SETTINGS.locale})`,
      )
      .optional(),
    seating_no_orphans: z
      .boolean()
      .describe('Named seats that would strand a single free seat are refused with 409 `seat_orphan` instead of held (default false)')
      .optional(),
    payment_minutes: ZPaymentMinutesInput.optional(),
    withdrawal_days: intSetting(
      b.withdrawal_days,
      `The buyer may withdraw from a paid order (POST /stf/v1/orders/{id}/cancel: cancelled, a pending refund of everything paid) ` +
        `this many days after buying it; 0 turns the withdrawal off (default ${DEFAULT_SETTINGS.withdrawal_days})`,
    ).optional(),
    withdrawal_cutoff_hours: intSetting(
      b.withdrawal_cutoff_hours,
      "The buyer's withdrawal closes this many hours before the earliest ticket's date (its 00:00 in `timezone`), " +
        `however many withdrawal_days are left (default ${DEFAULT_SETTINGS.withdrawal_cutoff_hours})`,
    ).optional(),
    guest_checkout: z
      .boolean()
      .describe(
        'Checkout without `X-Customer-Token`, with the buyer’s email and name: the order is opened by its `order_token`; ' +
          `false: checkout needs a customer (default ${DEFAULT_SETTINGS.guest_checkout})`,
      )
      .optional(),
    holder_changes_max: intSetting(
      b.holder_changes_max,
      'How many times the buyer may change a ticket’s holder (PUT /stf/v1/orders/{id}/tickets/{identifier}/holder; beyond it: 409 ' +
        `\`holder_locked\`); 0: never. Staff changes do not count (default ${DEFAULT_SETTINGS.holder_changes_max})`,
    ).optional(),
  })
  .describe('Only the settings given change')

export const ZSellerSettings = z
  .object({
    basket_ttl_seconds: z.number().int(),
    max_installments: z.number().int(),
    interest_free_installments: z.number().int(),
    monthly_rate: z.number(),
    min_installment_amount: z.number().int(),
    login_requires_verified_email: z.boolean(),
    timezone: z.string(),
    waiting_list_offer_minutes: z.number().int(),
    waiting_list_max_quantity: z.number().int(),
    locale: z.enum(LOCALES),
    seating_no_orphans: z.boolean(),
    payment_minutes: ZPaymentMinutes,
    withdrawal_days: z.number().int(),
    withdrawal_cutoff_hours: z.number().int(),
    guest_checkout: z.boolean(),
    holder_changes_max: z.number().int(),
  })
  .meta({ id: 'AdmSellerSettings' })

const ZContactEmail = z
  .email()
  .max(254)
  .nullable()
  .describe("Who is told about the seller's integration (e.g. a webhook endpoint turned off after 3 days of failures); null: nobody")

export const ZSeller = z
  .object({
    id: z.uuid(),
    name: z.string(),
    storefront_url: z.string(),
    contact_email: z.string().nullable().describe("Who is told about the seller's integration, e.g. a webhook endpoint turned off"),
    status: z.enum(SELLER_STATUSES),
    settings: ZSellerSettings,
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'AdmSeller' })

export const ZSellerCreated = ZSeller.extend({
  api_key: z.string().describe('The first API key (`sk_...`), the storefront password. Shown this once: only its hash is kept.'),
}).meta({ id: 'AdmSellerCreated' })

export const ZCreateSeller = z.strictObject({
  name: ZName,
  storefront_url: ZHttpUrl.describe('Base of the links in customer emails; a trailing slash is dropped'),
  contact_email: ZContactEmail.optional(),
  settings: ZSellerSettingsInput.optional(),
})

export const ZUpdateSeller = z
  .strictObject({
    name: ZName.optional(),
    storefront_url: ZHttpUrl.optional(),
    contact_email: ZContactEmail.optional(),
    status: z.enum(SELLER_STATUSES).describe('`disabled` refuses every API key of the seller from its next request on; `active` accepts them again').optional(),
    settings: ZSellerSettingsInput.optional(),
  })
  .refine(atLeastOneField, AT_LEAST_ONE)

export const ZSellerListQuery = ZPageQuery.extend({
  status: z.enum(SELLER_STATUSES).optional(),
  q: z.string().trim().min(1).max(200).optional().describe('Case-insensitive piece of the name'),
})

export const toSeller = (row: SellerRow) => ({
  id: row.id,
  name: row.name,
  storefront_url: row.storefrontUrl,
  contact_email: row.contactEmail,
  status: row.status,
  settings: settingsOf(row),
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
})
