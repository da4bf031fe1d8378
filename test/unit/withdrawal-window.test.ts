import { describe, expect, it } from 'vitest'
import { withdrawalWindow } from '../../src/domain/orders/withdraw-order.js'

const DAY = 86_400_000
const purchasedAt = Date.parse('2030-05-01T12:00:00Z')
const cutoff = Date.parse('2030-05-20T03:00:00Z') - 2 * DAY

describe('withdrawalWindow (docs/payments.md)', () => {
  it('is open within withdrawal_days of the purchase, up to and including its last instant', () => {
    expect(withdrawalWindow({ now: purchasedAt, purchasedAt, cutoff }, 7)).toEqual({ open: true, until: new Date(purchasedAt + 7 * DAY) })
    expect(withdrawalWindow({ now: purchasedAt + 7 * DAY, purchasedAt, cutoff }, 7).open).toBe(true)
    expect(withdrawalWindow({ now: purchasedAt + 7 * DAY + 1, purchasedAt, cutoff }, 7)).toEqual({ open: false, until: new Date(purchasedAt + 7 * DAY) })
  })

  it('closes at the cutoff before the earliest ticket when that comes first', () => {
    const early = purchasedAt + 3 * DAY
    expect(withdrawalWindow({ now: early, purchasedAt, cutoff: early }, 7)).toEqual({ open: true, until: new Date(early) })
    expect(withdrawalWindow({ now: early + 1, purchasedAt, cutoff: early }, 7)).toEqual({ open: false, until: new Date(early) })
    // A cutoff before the purchase itself (bought within the last hours): closed from the start.
    expect(withdrawalWindow({ now: purchasedAt, purchasedAt, cutoff: purchasedAt - DAY }, 7)).toEqual({ open: false, until: new Date(purchasedAt - DAY) })
  })

  it('without a valid ticket, only the days count', () => {
    expect(withdrawalWindow({ now: purchasedAt + 29 * DAY, purchasedAt, cutoff: null }, 30)).toEqual({ open: true, until: new Date(purchasedAt + 30 * DAY) })
  })

  it('withdrawal_days 0 turns it off: closed, until the purchase', () => {
    expect(withdrawalWindow({ now: purchasedAt, purchasedAt, cutoff }, 0)).toEqual({ open: false, until: new Date(purchasedAt) })
  })
})
