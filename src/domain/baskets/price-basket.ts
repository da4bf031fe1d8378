import { couponCovers, couponDiscount, isCouponExhausted, isCouponValidAt, type CouponProblem, type CouponTerms } from '../coupons/coupon-rules.js'

export type PriceLineInput = {
  id: string
  inventoryId: string
  eventId: string
  quantity: number
  unitPrice: number
  coupon: CouponTerms | null
}

export type PriceBasketInput = {
  lines: readonly PriceLineInput[]
  coupon: CouponTerms | null
  now: Date
  /** Confirmed orders of the basket's customer per coupon id; absent when the basket has no customer. */
  customerUses?: ReadonlyMap<string, number>
}

export type LinePrice = {
  id: string
  subtotal: number
  /** The item coupon's discount plus this line's share of the basket coupon's. */
  discount: number
  total: number
  /** Why the item coupon gives nothing now, or null when it applies (or there is none). */
  couponProblem: CouponProblem | null
}

export type BasketPrice = {
  lines: LinePrice[]
  /** Sum of quantity × unit price. */
  subtotal: number
  /** Item coupons plus the basket coupon. */
  discount: number
  basketDiscount: number
  total: number
  /** Why the basket coupon gives nothing now, or null when it applies (or there is none). */
  couponProblem: CouponProblem | null
}

/** Why a coupon does not apply, checked in the order a customer would want to hear it. */
function problemOf(coupon: CouponTerms, input: PriceBasketInput, subtotal: number, covers: boolean): CouponProblem | null {
  if (!isCouponValidAt(coupon, input.now)) return 'coupon_invalid'
  if (isCouponExhausted(coupon, input.customerUses?.get(coupon.id))) return 'coupon_exhausted'
  if (!covers) return 'coupon_not_applicable'
  if (coupon.minSubtotal !== null && subtotal < coupon.minSubtotal) return 'coupon_not_applicable'
  return null
}

/**
 * Prices a basket. Item coupons discount their own line; then the basket coupon discounts what
 * is left of the lines it covers, and its discount is spread over those lines (largest
 * remainder, weighted by what is left of each), so that the lines' totals add up to the total.
 * `min_subtotal` is measured against the basket subtotal before any discount. A coupon that does
 * not apply (any more) stays attached but gives nothing, and its problem is reported so that
 * applying or checking out can refuse it.
 */
export function priceBasket(input: PriceBasketInput): BasketPrice {
  const subtotal = input.lines.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0)
  const lines = input.lines.map((line): LinePrice => {
    const lineSubtotal = line.quantity * line.unitPrice
    const couponProblem = line.coupon ? problemOf(line.coupon, input, subtotal, couponCovers(line.coupon, line)) : null
    const discount = line.coupon && !couponProblem ? couponDiscount(line.coupon, lineSubtotal) : 0
    return { id: line.id, subtotal: lineSubtotal, discount, total: lineSubtotal - discount, couponProblem }
  })

  let basketDiscount = 0
  let couponProblem: CouponProblem | null = null
  if (input.coupon) {
    const coupon = input.coupon
    const covered = input.lines.map((line) => couponCovers(coupon, line))
    couponProblem = problemOf(coupon, input, subtotal, covered.some(Boolean))
    if (!couponProblem) {
      const bases = lines.map((line, n) => (covered[n] ? line.total : 0))
      basketDiscount = couponDiscount(
        coupon,
        bases.reduce((sum, base) => sum + base, 0),
      )
      spreadProportionally(basketDiscount, bases).forEach((share, n) => {
        const line = lines[n]!
        line.discount += share
        line.total -= share
      })
    }
  }

  // Item coupons' discounts plus the basket coupon's, which the lines' shares add up to.
  const discount = lines.reduce((sum, line) => sum + line.discount, 0)
  return { lines, subtotal, discount, basketDiscount, total: subtotal - discount, couponProblem }
}

/**
 * Splits `amount` centavos over `weights` in proportion (largest remainder method): each gets
 * the whole part of its exact share, and the centavos left go one each to the largest
 * remainders, the earlier first on a tie. The shares add up to `amount`; when `amount` is at
 * most the sum of the weights, no share exceeds its weight. Exact integer arithmetic.
 */
export function spreadProportionally(amount: number, weights: readonly number[]): number[] {
  const total = weights.reduce((sum, weight) => sum + weight, 0)
  if (amount === 0 || total === 0) return weights.map(() => 0)
  const whole = BigInt(total)
  const exact = weights.map((weight) => BigInt(amount) * BigInt(weight))
  const shares = exact.map((product) => Number(product / whole))
  let left = amount - shares.reduce((sum, share) => sum + share, 0)
  const byRemainder = exact
    .map((product, n) => ({ n, remainder: product % whole }))
    .sort((x, y) => (y.remainder > x.remainder ? 1 : y.remainder < x.remainder ? -1 : x.n - y.n))
  for (const { n } of byRemainder) {
    if (left === 0) break
    shares[n]! += 1
    left -= 1
  }
  return shares
}
