import { isDeepStrictEqual } from 'node:util'
import type { ErrorDetail } from '../../platform/errors.js'
import { PAYMENT_METHODS, type PaymentMethod } from '../baskets/installment-plans.js'
import type { SellerRow } from './sellers.repo.js'

/** What a seller may tune: basket holds, installment plans and customer sign-in. */
export type SellerSettings = {
  basket_ttl_seconds: number
  max_installments: number
  interest_free_installments: number
  monthly_rate: number
  min_installment_amount: number
  /** A password login of a customer who never confirmed its email answers 403 `email_not_verified`. */
  login_requires_verified_email: boolean
  /** The IANA time zone of the seller's "today": inventories dated before it are no longer sold. */
  timezone: string
  /** How long a waiting list's offer holds its tickets for the entry. */
  waiting_list_offer_minutes: number
  /**
   * The most tickets one waiting list entry may ask for: a visitor who asks for many holds every
   * later entry back, however many tickets come back one by one.
   */
  waiting_list_max_quantity: number
  /** The language of what the seller's buyers read: every email (its times read in `timezone`), the seat map, the PDF ticket. */
  locale: Locale
  /** Named seats that would strand a single free seat are refused (409 seat_orphan) rather than held. */
  seating_no_orphans: boolean
  /** How many minutes an order awaiting payment keeps its tickets, per method (docs/payments.md). */
  payment_minutes: PaymentMinutes
  /** The buyer may withdraw this many days after the purchase (0: never)… */
  withdrawal_days: number
  /** …until this many hours before the earliest ticket's date. */
  withdrawal_cutoff_hours: number
  /** Checkout without a customer token, with the buyer's email and name (docs/selling.md). */
  guest_checkout: boolean
  holder_changes_max: number
}

/** Minutes to pay, per payment method. */
export type PaymentMinutes = Record<PaymentMethod, number>

/**
 * A change of settings: only the settings given change, and within `payment_minutes` only the
 * methods given (`{payment_minutes: {pix: 10}}` keeps boleto's and credit card's minutes).
 */
export type SellerSettingsChange = Partial<Omit<SellerSettings, 'payment_minutes'>> & { payment_minutes?: Partial<PaymentMinutes> | undefined }

type NumericSetting = Exclude<
  keyof SellerSettings,
  'login_requires_verified_email' | 'timezone' | 'locale' | 'seating_no_orphans' | 'payment_minutes' | 'guest_checkout'
>

/** The languages buyers are written to in (emails, seat map, PDF ticket). */
export const LOCALES = ['pt-BR', 'en'] as const
export type Locale = (typeof LOCALES)[number]

/** The time zone of a seller that names none (`seller_today` falls back to the same). */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo'

/** A new seller's settings (docs/selling.md), also the column defaults. */
export const DEFAULT_SETTINGS: Readonly<SellerSettings> = Object.freeze({
  basket_ttl_seconds: 900,
  max_installments: 12,
  interest_free_installments: 1,
  monthly_rate: 0.0299,
  min_installment_amount: 500,
  login_requires_verified_email: true,
  timezone: DEFAULT_TIME_ZONE,
  waiting_list_offer_minutes: 1440,
  waiting_list_max_quantity: 4,
  locale: 'pt-BR',
  seating_no_orphans: false,
  payment_minutes: Object.freeze({ pix: 30, boleto: 4320, credit_card: 30 }),
  withdrawal_days: 7,
  withdrawal_cutoff_hours: 48,
  guest_checkout: true,
  holder_changes_max: 2,
})

/** Whether this is an IANA time zone name this process knows (the database knows the same list). */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(name)) return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name })
    return true
  } catch {
    return false
  }
}

/**
 * The range of each setting. A hold shorter than a minute cannot be paid for, one longer than
 * a day keeps tickets from everyone else; Brazilian card plans stop at 24 installments.
 */
export const SETTINGS_BOUNDS = Object.freeze({
  basket_ttl_seconds: { min: 60, max: 86_400, int: true },
  max_installments: { min: 1, max: 24, int: true },
  interest_free_installments: { min: 1, max: 24, int: true },
  monthly_rate: { min: 0, max: 1, int: false },
  min_installment_amount: { min: 1, max: 100_000_000, int: true },
  waiting_list_offer_minutes: { min: 5, max: 10_080, int: true },
  waiting_list_max_quantity: { min: 1, max: 20, int: true },
  withdrawal_days: { min: 0, max: 30, int: true },
  withdrawal_cutoff_hours: { min: 0, max: 720, int: true },
  holder_changes_max: { min: 0, max: 20, int: true },
} satisfies Record<NumericSetting, { min: number; max: number; int: boolean }>)

/**
 * The range of each method's `payment_minutes` (docs/payments.md), whole minutes: five to scan a pix,
 * thirty days at most for a boleto, so that unpaid tickets do not stay off sale for a season.
 */
export const PAYMENT_MINUTES_BOUNDS = Object.freeze({ min: 5, max: 43_200 })

export const settingsOf = (seller: SellerRow): SellerSettings => ({
  basket_ttl_seconds: seller.basketTtlSeconds,
  max_installments: seller.maxInstallments,
  interest_free_installments: seller.interestFreeInstallments,
  monthly_rate: seller.monthlyRate,
  min_installment_amount: seller.minInstallmentAmount,
  login_requires_verified_email: seller.loginRequiresVerifiedEmail,
  timezone: seller.timezone,
  waiting_list_offer_minutes: seller.waitingListOfferMinutes,
  waiting_list_max_quantity: seller.waitingListMaxQuantity,
  locale: seller.locale,
  seating_no_orphans: seller.seatingNoOrphans,
  payment_minutes: { ...DEFAULT_SETTINGS.payment_minutes, ...seller.paymentMinutes },
  withdrawal_days: seller.withdrawalDays,
  withdrawal_cutoff_hours: seller.withdrawalCutoffHours,
  guest_checkout: seller.guestCheckout,
  holder_changes_max: seller.holderChangesMax,
})

/** Maps API settings onto columns, leaving out what was not given. */
export const settingsColumns = (settings: Partial<SellerSettings> | undefined) => ({
  ...(settings?.basket_ttl_seconds !== undefined ? { basketTtlSeconds: settings.basket_ttl_seconds } : {}),
  ...(settings?.max_installments !== undefined ? { maxInstallments: settings.max_installments } : {}),
  ...(settings?.interest_free_installments !== undefined ? { interestFreeInstallments: settings.interest_free_installments } : {}),
  ...(settings?.monthly_rate !== undefined ? { monthlyRate: settings.monthly_rate } : {}),
  ...(settings?.min_installment_amount !== undefined ? { minInstallmentAmount: settings.min_installment_amount } : {}),
  ...(settings?.login_requires_verified_email !== undefined ? { loginRequiresVerifiedEmail: settings.login_requires_verified_email } : {}),
  ...(settings?.timezone !== undefined ? { timezone: settings.timezone } : {}),
  ...(settings?.waiting_list_offer_minutes !== undefined ? { waitingListOfferMinutes: settings.waiting_list_offer_minutes } : {}),
  ...(settings?.waiting_list_max_quantity !== undefined ? { waitingListMaxQuantity: settings.waiting_list_max_quantity } : {}),
  ...(settings?.locale !== undefined ? { locale: settings.locale } : {}),
  ...(settings?.seating_no_orphans !== undefined ? { seatingNoOrphans: settings.seating_no_orphans } : {}),
  ...(settings?.payment_minutes !== undefined ? { paymentMinutes: settings.payment_minutes } : {}),
  ...(settings?.withdrawal_days !== undefined ? { withdrawalDays: settings.withdrawal_days } : {}),
  ...(settings?.withdrawal_cutoff_hours !== undefined ? { withdrawalCutoffHours: settings.withdrawal_cutoff_hours } : {}),
  ...(settings?.guest_checkout !== undefined ? { guestCheckout: settings.guest_checkout } : {}),
  ...(settings?.holder_changes_max !== undefined ? { holderChangesMax: settings.holder_changes_max } : {}),
})

/**
 * What is wrong with a complete set of settings (each within its bounds, and no more
 * interest-free installments than installments), as validation details under `settings.`.
 */
export function settingsProblems(settings: SellerSettings): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  for (const [name, bounds] of Object.entries(SETTINGS_BOUNDS) as [NumericSetting, (typeof SETTINGS_BOUNDS)[NumericSetting]][]) {
    const value = settings[name]
    if (!Number.isFinite(value) || (bounds.int && !Number.isInteger(value)) || value < bounds.min || value > bounds.max) {
      problems.push({ path: `settings.${name}`, message: `must be ${bounds.int ? 'an integer' : 'a number'} from ${bounds.min} to ${bounds.max}` })
    }
  }
  if (!(LOCALES as readonly string[]).includes(settings.locale)) problems.push({ path: 'settings.locale', message: `must be one of ${LOCALES.join(', ')}` })
  if (!isTimeZone(settings.timezone)) problems.push({ path: 'settings.timezone', message: `must be an IANA time zone name, e.g. ${DEFAULT_TIME_ZONE}` })
  for (const method of PAYMENT_METHODS) {
    const minutes = settings.payment_minutes[method]
    if (!Number.isInteger(minutes) || minutes < PAYMENT_MINUTES_BOUNDS.min || minutes > PAYMENT_MINUTES_BOUNDS.max) {
      problems.push({
        path: `settings.payment_minutes.${method}`,
        message: `must be an integer from ${PAYMENT_MINUTES_BOUNDS.min} to ${PAYMENT_MINUTES_BOUNDS.max}`,
      })
    }
  }
  if (settings.interest_free_installments > settings.max_installments) {
    problems.push({ path: 'settings.interest_free_installments', message: 'must not exceed max_installments' })
  }
  return problems
}

/** The entries of `patch` that say something (undefined leaves a setting as it is). */
const given = <T extends object>(patch: T | undefined): Partial<T> =>
  Object.fromEntries(Object.entries(patch ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>

/** `base` with the settings given in `change`; `payment_minutes` merges per method. */
export const mergeSettings = (base: SellerSettings, change: SellerSettingsChange | undefined): SellerSettings => ({
  ...base,
  ...given(change),
  payment_minutes: { ...base.payment_minutes, ...given(change?.payment_minutes) },
})

/** The settings whose values differ between `before` and `after` (by value: `payment_minutes` is an object). */
export const changedSettings = (before: SellerSettings, after: SellerSettings): (keyof SellerSettings)[] =>
  (Object.keys(after) as (keyof SellerSettings)[]).filter((key) => !isDeepStrictEqual(after[key], before[key]))
