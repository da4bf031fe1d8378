import type { ErrorCode, ErrorDetail } from '../../platform/errors.js'
import type { COUPON_TYPES } from './coupons.table.js'

// The rules of coupons, as pure functions: what a back-office change may set, and how a
// coupon applies to a basket.

export type CouponType = (typeof COUPON_TYPES)[number]

/** A fixed discount is at most this many centavos (R$ 1.000.000,00). */
export const MAX_FIXED_VALUE = 100_000_000

/** The settings of a coupon that must hold together, whichever of them a change touches. */
export type CouponSettings = {
  type: CouponType
  value: number
  startsAt: Date | null
  endsAt: Date | null
  maxUses: number | null
  /** Redemptions so far. */
  uses: number
}

/**
 * What is wrong with a coupon's terms: percent 1..100, fixed at least one centavo, a window
 * that ends after it starts, and no usage limit below the uses already counted.
 */
export function couponProblems(terms: CouponSettings): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  if (terms.type === 'percent' && !(Number.isInteger(terms.value) && terms.value >= 1 && terms.value <= 100)) {
    problems.push({ path: 'value', message: 'a percent coupon takes a whole percentage from 1 to 100' })
  }
  if (terms.type === 'fixed' && !(Number.isInteger(terms.value) && terms.value >= 1 && terms.value <= MAX_FIXED_VALUE)) {
    problems.push({ path: 'value', message: `a fixed coupon takes centavos from 1 to ${MAX_FIXED_VALUE}` })
  }
  if (terms.startsAt && terms.endsAt && terms.endsAt.getTime() <= terms.startsAt.getTime()) {
    problems.push({ path: 'ends_at', message: 'must be after starts_at' })
  }
  if (terms.maxUses !== null && terms.maxUses < terms.uses) {
    problems.push({ path: 'max_uses', message: `must not be below the ${terms.uses} uses so far` })
  }
  return problems
}

/** What pricing needs to know of a coupon row. */
export type CouponTerms = {
  id: string
  code: string
  type: CouponType
  value: number
  eventIds: readonly string[]
  inventoryIds: readonly string[]
  startsAt: Date | null
  endsAt: Date | null
  maxUses: number | null
  maxUsesPerCustomer: number | null
  minSubtotal: number | null
  active: boolean
  uses: number
}

/** Why a coupon gives nothing: each is also the error code that refuses it. */
export const COUPON_PROBLEMS = ['coupon_invalid', 'coupon_not_applicable', 'coupon_exhausted'] as const satisfies readonly ErrorCode[]
export type CouponProblem = (typeof COUPON_PROBLEMS)[number]

/** Active and inside its window: `starts_at` inclusive, `ends_at` exclusive. */
export function isCouponValidAt(coupon: CouponTerms, now: Date): boolean {
  if (!coupon.active) return false
  if (coupon.startsAt && now < coupon.startsAt) return false
  if (coupon.endsAt && now >= coupon.endsAt) return false
  return true
}

/**
 * The usage limits: `uses` counts confirmed orders; `customerUses` the orders of the basket's
 * customer (unknown, hence not checked, while the basket has no customer).
 */
export function isCouponExhausted(coupon: CouponTerms, customerUses: number | undefined): boolean {
  if (coupon.maxUses !== null && coupon.uses >= coupon.maxUses) return true
  if (coupon.maxUsesPerCustomer !== null && customerUses !== undefined && customerUses >= coupon.maxUsesPerCustomer) return true
  return false
}

/** Empty lists cover everything; when both are given an item must match both. */
export function couponCovers(coupon: CouponTerms, item: { eventId: string; inventoryId: string }): boolean {
  const byEvent = coupon.eventIds.length === 0 || coupon.eventIds.includes(item.eventId)
  const byInventory = coupon.inventoryIds.length === 0 || coupon.inventoryIds.includes(item.inventoryId)
  return byEvent && byInventory
}

/** The discount on `base` centavos: percent rounds down to the centavo; never more than `base`. */
export function couponDiscount(coupon: Pick<CouponTerms, 'type' | 'value'>, base: number): number {
  if (base <= 0) return 0
  const raw = coupon.type === 'percent' ? Math.floor((base * coupon.value) / 100) : coupon.value
  return Math.max(0, Math.min(raw, base))
}
