import type { ErrorDetail } from '../../platform/errors.js'
import type { COUPON_TYPES } from './coupons.table.js'

export type CouponType = (typeof COUPON_TYPES)[number]

/** A fixed discount is at most this many centavos (R$ 1.000.000,00). */
export const MAX_FIXED_VALUE = 100_000_000

/** The terms of a coupon that must hold together, whichever of them a change touches. */
export type CouponTerms = {
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
export function couponProblems(terms: CouponTerms): ErrorDetail[] {
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
