/** What pricing needs to know of a coupon row. */
export type CouponTerms = {
  id: string
  code: string
  type: 'percent' | 'fixed'
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

export type CouponProblem = 'coupon_invalid' | 'coupon_not_applicable' | 'coupon_exhausted'

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
