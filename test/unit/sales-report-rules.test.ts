import { describe, expect, it } from 'vitest'
import { groupEntries, refundWeights, resolvePeriod, spreadByLargestRemainder } from '../../src/domain/reports/sales-report.js'

describe('resolvePeriod', () => {
  it('defaults to the 30 days up to tomorrow, and to 30 days before a given to', () => {
    expect(resolvePeriod({}, '2026-12-31')).toEqual({ from: '2026-12-02', to: '2027-01-01' })
    expect(resolvePeriod({ to: '2026-03-01' }, '2026-12-07')).toEqual({ from: '2026-01-30', to: '2026-03-01' })
    expect(resolvePeriod({ from: '2026-11-01' }, '2026-12-07')).toEqual({ from: '2026-11-01', to: '2026-12-08' })
  })

  it('takes 366 days and refuses 367, and a to not after from', () => {
    expect(resolvePeriod({ from: '2028-01-01', to: '2029-01-01' }, '2026-12-07').to).toBe('2029-01-01')
    expect(() => resolvePeriod({ from: '2026-01-01', to: '2027-01-03' }, '2026-12-07')).toThrow()
    expect(() => resolvePeriod({ from: '2026-01-01', to: '2026-01-01' }, '2026-12-07')).toThrow()
    // A from after the default to (tomorrow) is refused rather than read backwards.
    expect(() => resolvePeriod({ from: '2027-05-01' }, '2026-12-07')).toThrow()
  })
})

describe('spreadByLargestRemainder', () => {
  it('adds up exactly, the centavos left to the largest remainders, the earlier on a tie', () => {
    expect(spreadByLargestRemainder(1001, [9544n, 11453n])).toEqual([455, 546])
    expect(spreadByLargestRemainder(100, [1n, 1n, 1n])).toEqual([34, 33, 33])
    expect(spreadByLargestRemainder(2, [1n, 1n, 1n])).toEqual([1, 1, 0])
    expect(spreadByLargestRemainder(7, [0n, 0n])).toEqual([0, 0])
  })
})

describe('refundWeights', () => {
  const item = (sale_net: number, sale_tickets: number, refunded_tickets: number, has_tickets: boolean) => ({
    sale_net,
    sale_tickets,
    refunded_tickets,
    has_tickets,
  })

  it('without tickets: by each item’s net; all free: by tickets', () => {
    expect(refundWeights([item(9544, 2, 0, false), item(11453, 1, 0, false)])).toEqual([9544n, 11453n])
    expect(refundWeights([item(0, 2, 0, false), item(0, 1, 0, false)])).toEqual([2n, 1n])
  })

  it('with tickets: by the value of the tickets named in each item, on a common denominator', () => {
    // One of 3 tickets of 9000 (3000) and one of 2 of 10000 (5000): 3 : 5.
    const weights = refundWeights([item(9000, 3, 1, true), item(10000, 2, 1, true), item(7000, 1, 0, true)])
    expect(weights.map((w) => Number(w))).toEqual([18000, 30000, 0])
    expect(spreadByLargestRemainder(800, weights)).toEqual([300, 500, 0])
  })
})

describe('groupEntries', () => {
  it('sums per key, leaves out all-zero rows, sorts with nulls last, and totals the rows', () => {
    const zero = { tickets: 0, gross: 0, discount: 0, interest: 0, net: 0, refunded: 0 }
    const { rows, totals } = groupEntries(
      [
        { ...zero, values: [null], tickets: 1, gross: 100, net: 100 },
        { ...zero, values: ['pix'], tickets: 2, gross: 200, net: 200 },
        { ...zero, values: ['boleto'], tickets: 1, gross: 50, net: 50 },
        { ...zero, values: ['boleto'], tickets: -1, gross: -50, net: -50 },
        { ...zero, values: ['pix'], refunded: 30 },
      ],
      ['payment_method'],
    )
    expect(rows).toEqual([
      { key: { payment_method: 'pix' }, ...zero, tickets: 2, gross: 200, net: 200, refunded: 30 },
      { key: { payment_method: null }, ...zero, tickets: 1, gross: 100, net: 100 },
    ])
    expect(totals).toEqual({ ...zero, tickets: 3, gross: 300, net: 300, refunded: 30 })
  })
})
