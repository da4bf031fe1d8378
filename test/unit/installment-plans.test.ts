import { describe, expect, it } from 'vitest'
import { installmentPlans } from '../../src/domain/baskets/installment-plans.js'

const defaults = { max_installments: 12, interest_free_installments: 1, monthly_rate: 0.0299, min_installment_amount: 500 }

// Expected values worked out independently (50-digit decimal arithmetic, half-up rounding):
// amount = round(10000 × 0.0299 / (1 − 1.0299^−n)), total = amount × n, interest = total − 10000.
const PRICE_TABLE_10000_AT_2_99: [n: number, amount: number, total: number, interest: number][] = [
  [2, 5225, 10450, 450],
  [3, 3535, 10605, 605],
  [4, 2690, 10760, 760],
  [5, 2183, 10915, 915],
  [6, 1845, 11070, 1070],
  [7, 1604, 11228, 1228],
  [8, 1424, 11392, 1392],
  [9, 1284, 11556, 1556],
  [10, 1172, 11720, 1720],
  [11, 1080, 11880, 1880],
  [12, 1004, 12048, 2048],
]

describe('installmentPlans', () => {
  it('offers a total of 10000 in 1 to 12 installments at 2.99 % a month with the exact Price amounts', () => {
    expect(installmentPlans(10000, 'credit_card', defaults)).toEqual([
      { installments: 1, amount: 10000, last_amount: 10000, total: 10000, interest: 0, monthly_rate: 0 },
      ...PRICE_TABLE_10000_AT_2_99.map(([installments, amount, total, interest]) => ({
        installments,
        amount,
        last_amount: amount,
        total,
        interest,
        monthly_rate: 0.0299,
      })),
    ])
  })

  it('charges no interest up to interest_free_installments, with ceil(total / n) each and the rest in the last', () => {
    const plans = installmentPlans(10000, 'credit_card', { ...defaults, interest_free_installments: 3, max_installments: 4 })
    expect(plans).toEqual([
      { installments: 1, amount: 10000, last_amount: 10000, total: 10000, interest: 0, monthly_rate: 0 },
      { installments: 2, amount: 5000, last_amount: 5000, total: 10000, interest: 0, monthly_rate: 0 },
      { installments: 3, amount: 3334, last_amount: 3332, total: 10000, interest: 0, monthly_rate: 0 },
      { installments: 4, amount: 2690, last_amount: 2690, total: 10760, interest: 760, monthly_rate: 0.0299 },
    ])
  })

  it('drops plans whose installment would be under min_installment_amount', () => {
    // 3000 at 2.99 %: n = 6 pays 554, n = 7 would pay 481.
    const plans = installmentPlans(3000, 'credit_card', defaults)
    expect(plans.map((p) => p.installments)).toEqual([1, 2, 3, 4, 5, 6])
    expect(plans[5]).toEqual({ installments: 6, amount: 554, last_amount: 554, total: 3324, interest: 324, monthly_rate: 0.0299 })
    expect(plans[2]).toEqual({ installments: 3, amount: 1060, last_amount: 1060, total: 3180, interest: 180, monthly_rate: 0.0299 })
  })

  it('uses the seller rate and limits', () => {
    expect(installmentPlans(9999, 'credit_card', { ...defaults, monthly_rate: 0.0199, max_installments: 4 })).toEqual([
      { installments: 1, amount: 9999, last_amount: 9999, total: 9999, interest: 0, monthly_rate: 0 },
      { installments: 2, amount: 5149, last_amount: 5149, total: 10298, interest: 299, monthly_rate: 0.0199 },
      { installments: 3, amount: 3467, last_amount: 3467, total: 10401, interest: 402, monthly_rate: 0.0199 },
      { installments: 4, amount: 2625, last_amount: 2625, total: 10500, interest: 501, monthly_rate: 0.0199 },
    ])
  })

  it('always offers the single payment, even under the minimum or for a free basket', () => {
    expect(installmentPlans(300, 'credit_card', defaults)).toEqual([
      { installments: 1, amount: 300, last_amount: 300, total: 300, interest: 0, monthly_rate: 0 },
    ])
    expect(installmentPlans(0, 'credit_card', defaults)).toEqual([{ installments: 1, amount: 0, last_amount: 0, total: 0, interest: 0, monthly_rate: 0 }])
  })

  it('splits without interest when the monthly rate is 0', () => {
    expect(installmentPlans(1000, 'credit_card', { ...defaults, monthly_rate: 0, max_installments: 3, min_installment_amount: 1 })).toEqual([
      { installments: 1, amount: 1000, last_amount: 1000, total: 1000, interest: 0, monthly_rate: 0 },
      { installments: 2, amount: 500, last_amount: 500, total: 1000, interest: 0, monthly_rate: 0 },
      { installments: 3, amount: 334, last_amount: 332, total: 1000, interest: 0, monthly_rate: 0 },
    ])
  })

  it('gives pix and boleto one plan of 1', () => {
    for (const method of ['pix', 'boleto']) {
      expect(installmentPlans(12345, method, defaults)).toEqual([
        { installments: 1, amount: 12345, last_amount: 12345, total: 12345, interest: 0, monthly_rate: 0 },
      ])
    }
  })

  it('refuses other payment methods with unsupported_payment_method', () => {
    for (const method of ['bitcoin', 'CREDIT_CARD', '']) {
      expect(() => installmentPlans(1000, method, defaults)).toThrow(expect.objectContaining({ code: 'unsupported_payment_method', status: 422 }))
    }
  })

  it('charges exactly the plan total: amount × (n − 1) + last_amount = total, for any total', () => {
    // Interest-free 3x of 10001 used to read 3 × 3334 = 10002.
    expect(installmentPlans(10001, 'credit_card', { ...defaults, interest_free_installments: 3, max_installments: 3 })[2]).toEqual({
      installments: 3,
      amount: 3334,
      last_amount: 3333,
      total: 10001,
      interest: 0,
      monthly_rate: 0,
    })
    for (const total of [0, 1, 999, 1000, 10001, 33333, 1234567]) {
      for (const settings of [defaults, { ...defaults, interest_free_installments: 12 }, { ...defaults, monthly_rate: 0, min_installment_amount: 1 }]) {
        for (const plan of installmentPlans(total, 'credit_card', settings)) {
          expect(plan.amount * (plan.installments - 1) + plan.last_amount, JSON.stringify({ total, plan })).toBe(plan.total)
          expect(plan.total - plan.interest).toBe(total)
        }
      }
    }
  })

  it('drops a plan whose last installment would be under min_installment_amount', () => {
    // 1000 in 3 without interest: 334 + 334 + 332.
    const settings = { ...defaults, interest_free_installments: 3, max_installments: 3 }
    expect(installmentPlans(1000, 'credit_card', { ...settings, min_installment_amount: 332 }).map((p) => p.installments)).toEqual([1, 2, 3])
    expect(installmentPlans(1000, 'credit_card', { ...settings, min_installment_amount: 333 }).map((p) => p.installments)).toEqual([1, 2])
    // 5 in 4 would be 2 + 2 + 2 − 1: never offered.
    expect(installmentPlans(5, 'credit_card', { ...defaults, interest_free_installments: 4, max_installments: 4, min_installment_amount: 1 })).toEqual([
      { installments: 1, amount: 5, last_amount: 5, total: 5, interest: 0, monthly_rate: 0 },
      { installments: 2, amount: 3, last_amount: 2, total: 5, interest: 0, monthly_rate: 0 },
      { installments: 3, amount: 2, last_amount: 1, total: 5, interest: 0, monthly_rate: 0 },
    ])
  })
})
