import { describe, expect, it } from 'vitest'
import { couponProblems, type CouponSettings } from '../../src/domain/coupons/coupon-rules.js'
import { changedSettings, DEFAULT_SETTINGS, mergeSettings, settingsProblems } from '../../src/domain/sellers/seller-settings.js'

describe('settingsProblems', () => {
  it('accepts the defaults and the bounds themselves', () => {
    expect(settingsProblems(DEFAULT_SETTINGS)).toEqual([])
    expect(
      settingsProblems({
        ...DEFAULT_SETTINGS,
        basket_ttl_seconds: 60,
        max_installments: 24,
        interest_free_installments: 24,
        monthly_rate: 0,
        min_installment_amount: 1,
      }),
    ).toEqual([])
    expect(settingsProblems({ ...DEFAULT_SETTINGS, basket_ttl_seconds: 86_400, monthly_rate: 1 })).toEqual([])
  })

  it('names each setting out of bounds', () => {
    const problems = settingsProblems({
      ...DEFAULT_SETTINGS,
      basket_ttl_seconds: 59,
      max_installments: 25,
      interest_free_installments: 0,
      monthly_rate: 1.5,
      min_installment_amount: 0,
    })
    expect(problems.map((p) => p.path).sort()).toEqual([
      'settings.basket_ttl_seconds',
      'settings.interest_free_installments',
      'settings.max_installments',
      'settings.min_installment_amount',
      'settings.monthly_rate',
    ])
    expect(settingsProblems({ ...DEFAULT_SETTINGS, max_installments: 2.5 })).toEqual([expect.objectContaining({ path: 'settings.max_installments' })])
  })

  it('refuses more interest-free installments than installments', () => {
    expect(settingsProblems({ ...DEFAULT_SETTINGS, max_installments: 6, interest_free_installments: 7 })).toEqual([
      { path: 'settings.interest_free_installments', message: 'must not exceed max_installments' },
    ])
  })

  it('merges only the settings given', () => {
    expect(mergeSettings(DEFAULT_SETTINGS, { max_installments: 3, monthly_rate: undefined })).toEqual({ ...DEFAULT_SETTINGS, max_installments: 3 })
  })

  it('merges payment_minutes per method, and names a method out of bounds', () => {
    const merged = mergeSettings(DEFAULT_SETTINGS, { payment_minutes: { pix: 10, boleto: undefined } })
    expect(merged.payment_minutes).toEqual({ pix: 10, boleto: 4320, credit_card: 30 })
    expect(mergeSettings(merged, { withdrawal_days: 0 }).payment_minutes).toEqual({ pix: 10, boleto: 4320, credit_card: 30 })
    expect(settingsProblems(mergeSettings(DEFAULT_SETTINGS, { payment_minutes: { pix: 5, boleto: 43_200 } }))).toEqual([])
    expect(settingsProblems(mergeSettings(DEFAULT_SETTINGS, { payment_minutes: { pix: 4, credit_card: 30.5 } })).map((p) => p.path)).toEqual([
      'settings.payment_minutes.credit_card',
      'settings.payment_minutes.pix',
    ])
  })

  it('tells which settings changed, by value', () => {
    const same = mergeSettings(DEFAULT_SETTINGS, { payment_minutes: { pix: 30 } })
    expect(changedSettings(DEFAULT_SETTINGS, same)).toEqual([])
    expect(changedSettings(DEFAULT_SETTINGS, mergeSettings(DEFAULT_SETTINGS, { payment_minutes: { pix: 31 }, withdrawal_days: 0 }))).toEqual([
      'payment_minutes',
      'withdrawal_days',
    ])
  })
})

describe('couponProblems', () => {
  const terms: CouponSettings = { type: 'percent', value: 10, startsAt: null, endsAt: null, maxUses: null, uses: 0 }

  it('takes percent values 1..100 and fixed values of at least one centavo', () => {
    expect(couponProblems(terms)).toEqual([])
    expect(couponProblems({ ...terms, value: 100 })).toEqual([])
    expect(couponProblems({ ...terms, value: 101 })).toEqual([expect.objectContaining({ path: 'value' })])
    expect(couponProblems({ ...terms, value: 0 })).toEqual([expect.objectContaining({ path: 'value' })])
    expect(couponProblems({ ...terms, type: 'fixed', value: 1 })).toEqual([])
    expect(couponProblems({ ...terms, type: 'fixed', value: 5000 })).toEqual([])
    expect(couponProblems({ ...terms, type: 'fixed', value: 0 })).toEqual([expect.objectContaining({ path: 'value' })])
  })

  it('wants a window that ends after it starts', () => {
    const start = new Date('2030-01-01T00:00:00Z')
    expect(couponProblems({ ...terms, startsAt: start, endsAt: new Date('2030-01-02T00:00:00Z') })).toEqual([])
    expect(couponProblems({ ...terms, startsAt: start, endsAt: start })).toEqual([expect.objectContaining({ path: 'ends_at' })])
    expect(couponProblems({ ...terms, startsAt: null, endsAt: start })).toEqual([])
  })

  it('keeps a usage limit at or above the uses so far', () => {
    expect(couponProblems({ ...terms, maxUses: 3, uses: 3 })).toEqual([])
    expect(couponProblems({ ...terms, maxUses: 2, uses: 3 })).toEqual([expect.objectContaining({ path: 'max_uses' })])
  })
})
