import { describe, expect, it } from 'vitest'
import { priceBasket, spreadProportionally, type PriceLineInput } from '../../src/domain/baskets/price-basket.js'
import { couponDiscount, type CouponTerms } from '../../src/domain/coupons/coupon-rules.js'

const now = new Date('2030-06-01T12:00:00Z')
const E1 = 'e1'
const E2 = 'e2'

const coupon = (overrides: Partial<CouponTerms> = {}): CouponTerms => ({
  id: 'c1',
  code: 'SAVE',
  type: 'percent',
  value: 10,
  eventIds: [],
  inventoryIds: [],
  startsAt: null,
  endsAt: null,
  maxUses: null,
  maxUsesPerCustomer: null,
  minSubtotal: null,
  active: true,
  uses: 0,
  ...overrides,
})

const line = (id: string, quantity: number, unitPrice: number, overrides: Partial<PriceLineInput> = {}): PriceLineInput => ({
  id,
  inventoryId: `inv-${id}`,
  eventId: E1,
  quantity,
  unitPrice,
  coupon: null,
  ...overrides,
})

describe('couponDiscount', () => {
  it('rounds percent discounts down to the centavo', () => {
    expect(couponDiscount({ type: 'percent', value: 10 }, 3333)).toBe(333)
    expect(couponDiscount({ type: 'percent', value: 15 }, 999)).toBe(149)
    expect(couponDiscount({ type: 'percent', value: 33 }, 1)).toBe(0)
  })

  it('never discounts more than what it applies to', () => {
    expect(couponDiscount({ type: 'fixed', value: 10000 }, 5000)).toBe(5000)
    expect(couponDiscount({ type: 'percent', value: 100 }, 5000)).toBe(5000)
    expect(couponDiscount({ type: 'fixed', value: 700 }, 0)).toBe(0)
  })
})

describe('priceBasket', () => {
  it('sums quantity × unit price and has no discount without coupons', () => {
    const price = priceBasket({ now, coupon: null, lines: [line('a', 2, 5000), line('b', 1, 1234)] })
    expect(price).toMatchObject({ subtotal: 11234, discount: 0, total: 11234, couponProblem: null })
    expect(price.lines).toEqual([
      { id: 'a', subtotal: 10000, discount: 0, total: 10000, couponProblem: null },
      { id: 'b', subtotal: 1234, discount: 0, total: 1234, couponProblem: null },
    ])
  })

  it('applies a basket coupon only to the lines of the events it covers', () => {
    const price = priceBasket({
      now,
      coupon: coupon({ eventIds: [E2], value: 15 }),
      lines: [line('a', 1, 10000), line('b', 3, 333, { eventId: E2 })],
    })
    // 15 % of 999 = 149.85, rounded down.
    expect(price).toMatchObject({ subtotal: 10999, discount: 149, basketDiscount: 149, total: 10850, couponProblem: null })
  })

  it('requires both lists when a coupon names events and inventories', () => {
    const c = coupon({ eventIds: [E1], inventoryIds: ['inv-b'] })
    const price = priceBasket({ now, coupon: c, lines: [line('a', 1, 1000), line('b', 1, 2000), line('c', 1, 4000, { eventId: E2, inventoryId: 'inv-b' })] })
    expect(price.discount).toBe(200)
  })

  it('reports a coupon that covers nothing in the basket as not applicable and discounts nothing', () => {
    const price = priceBasket({ now, coupon: coupon({ inventoryIds: ['elsewhere'] }), lines: [line('a', 1, 1000)] })
    expect(price).toMatchObject({ discount: 0, total: 1000, couponProblem: 'coupon_not_applicable' })
    expect(priceBasket({ now, coupon: coupon(), lines: [] }).couponProblem).toBe('coupon_not_applicable')
  })

  it('caps a fixed basket coupon at what it covers', () => {
    const price = priceBasket({
      now,
      coupon: coupon({ type: 'fixed', value: 5000, eventIds: [E2] }),
      lines: [line('a', 1, 9000), line('b', 1, 3000, { eventId: E2 })],
    })
    expect(price).toMatchObject({ discount: 3000, total: 9000 })
  })

  it('discounts an item coupon on its own line only', () => {
    const price = priceBasket({ now, coupon: null, lines: [line('a', 2, 5000, { coupon: coupon({ type: 'fixed', value: 1500 }) }), line('b', 1, 5000)] })
    expect(price.lines.map((l) => [l.discount, l.total])).toEqual([
      [1500, 8500],
      [0, 5000],
    ])
    expect(price).toMatchObject({ subtotal: 15000, discount: 1500, total: 13500 })
  })

  it('applies the basket coupon to what item coupons left', () => {
    const price = priceBasket({
      now,
      coupon: coupon({ id: 'c2', value: 10 }),
      lines: [line('a', 1, 10000, { coupon: coupon({ value: 50 }) }), line('b', 1, 3333)],
    })
    // Item: 50 % of 10000 = 5000. Basket: 10 % of (5000 + 3333) = 833.3 → 833.
    expect(price).toMatchObject({ subtotal: 13333, discount: 5833, basketDiscount: 833, total: 7500 })
  })

  it('judges min_subtotal against the basket subtotal before discounts', () => {
    const lines = [line('a', 2, 2500)]
    expect(priceBasket({ now, coupon: coupon({ minSubtotal: 5000 }), lines }).couponProblem).toBeNull()
    expect(priceBasket({ now, coupon: coupon({ minSubtotal: 5001 }), lines })).toMatchObject({ couponProblem: 'coupon_not_applicable', discount: 0 })
  })

  it('treats an inactive coupon or one outside its window as invalid', () => {
    const lines = [line('a', 1, 1000)]
    const at = (c: Partial<CouponTerms>) => priceBasket({ now, coupon: coupon(c), lines }).couponProblem
    expect(at({ active: false })).toBe('coupon_invalid')
    expect(at({ startsAt: new Date('2030-06-01T12:00:01Z') })).toBe('coupon_invalid')
    expect(at({ startsAt: now })).toBeNull()
    expect(at({ endsAt: now })).toBe('coupon_invalid')
    expect(at({ endsAt: new Date('2030-06-01T12:00:01Z') })).toBeNull()
  })

  it('treats a coupon at its usage limit as exhausted, per customer only when the customer is known', () => {
    const lines = [line('a', 1, 1000)]
    expect(priceBasket({ now, coupon: coupon({ maxUses: 3, uses: 3 }), lines }).couponProblem).toBe('coupon_exhausted')
    expect(priceBasket({ now, coupon: coupon({ maxUses: 3, uses: 2 }), lines }).couponProblem).toBeNull()
    const perCustomer = coupon({ maxUsesPerCustomer: 1 })
    expect(priceBasket({ now, coupon: perCustomer, lines }).couponProblem).toBeNull()
    expect(priceBasket({ now, coupon: perCustomer, lines, customerUses: new Map([['c1', 1]]) }).couponProblem).toBe('coupon_exhausted')
    expect(priceBasket({ now, coupon: perCustomer, lines, customerUses: new Map([['c1', 0]]) }).couponProblem).toBeNull()
  })

  it('spreads the basket coupon over the lines it covers, so that the lines add up to the total', () => {
    const price = priceBasket({
      now,
      coupon: coupon({ id: 'c2', type: 'fixed', value: 1000 }),
      lines: [line('a', 1, 3333), line('b', 1, 3333), line('c', 1, 3334)],
    })
    // 1000 × 3333 / 10000 = 333.3 (twice), 333.4: 333, 333, 334.
    expect(price.lines.map((l) => [l.discount, l.total])).toEqual([
      [333, 3000],
      [333, 3000],
      [334, 3000],
    ])
    expect(price).toMatchObject({ discount: 1000, basketDiscount: 1000, total: 9000 })
  })

  it('gives the lines a basket coupon does not cover no share, and weighs each line by what its item coupon left', () => {
    const price = priceBasket({
      now,
      coupon: coupon({ id: 'c2', value: 10, eventIds: [E1] }),
      lines: [line('a', 1, 10000, { coupon: coupon({ value: 50 }) }), line('b', 1, 3333), line('c', 1, 7000, { eventId: E2 })],
    })
    // Item: 5000 off a. Basket: 10 % of (5000 + 3333) = 833, spread 5000 : 3333 → 499.8, 333.2 → 500, 333.
    expect(price.lines.map((l) => [l.discount, l.total])).toEqual([
      [5500, 4500],
      [333, 3000],
      [0, 7000],
    ])
    expect(price.lines.reduce((sum, l) => sum + l.total, 0)).toBe(price.total)
    expect(price).toMatchObject({ subtotal: 20333, discount: 5833, total: 14500 })
  })

  it('adds up for any basket', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = (n: number) => (seed * 7919 + n * 104729) % 9973
      const lines = Array.from({ length: 1 + (seed % 6) }, (_, n) => line(`l${n}`, 1 + (random(n) % 5), 1 + random(n + 10)))
      const basketCoupon = seed % 2 ? coupon({ id: 'c2', type: 'fixed', value: random(99) }) : coupon({ id: 'c2', value: 1 + (seed % 100) })
      const price = priceBasket({ now, coupon: basketCoupon, lines })
      expect(price.lines.reduce((sum, l) => sum + l.total, 0)).toBe(price.total)
      for (const l of price.lines) expect(l.total).toBeGreaterThanOrEqual(0)
    }
  })
})

describe('spreadProportionally', () => {
  it('splits by largest remainder, the earlier first on a tie, never beyond a weight', () => {
    expect(spreadProportionally(100, [1, 1, 1])).toEqual([34, 33, 33])
    expect(spreadProportionally(10, [5, 0, 5])).toEqual([5, 0, 5])
    expect(spreadProportionally(7, [1, 2, 4])).toEqual([1, 2, 4])
    expect(spreadProportionally(5, [1, 1, 1, 1, 1, 1])).toEqual([1, 1, 1, 1, 1, 0])
    expect(spreadProportionally(0, [3, 4])).toEqual([0, 0])
    expect(spreadProportionally(0, [])).toEqual([])
  })

  it('stays exact for sums beyond 2^53 once multiplied', () => {
    const shares = spreadProportionally(999_999_999, [4_000_000_000, 3_000_000_001, 2_999_999_999])
    expect(shares.reduce((sum, share) => sum + share, 0)).toBe(999_999_999)
    // Whole parts 399 999 999, 299 999 999, 299 999 999; remainders 0.6, 0.7999999999, 0.6000000001.
    expect(shares).toEqual([399_999_999, 300_000_000, 300_000_000])
  })
})
