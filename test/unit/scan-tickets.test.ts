import { describe, expect, it } from 'vitest'
import { countsAt, judgeScan, overridable, type ScanFacts } from '../../src/domain/checkin/scan-tickets.js'

const opensAt = new Date('2030-05-01T03:00:00Z')
const closesAt = new Date('2030-05-02T09:00:00Z')
const base: ScanFacts = {
  type: 'entry',
  at: new Date('2030-05-01T20:00:00Z'),
  ticket: { status: 'valid', opensAt, closesAt },
  list: { allowMultipleEntries: false, allowEntryAfterExit: true },
  state: { entered: false, lastType: null, lastAt: null },
}
const entered = { entered: true, lastType: 'entry' as const, lastAt: opensAt }
const wentOut = { entered: true, lastType: 'exit' as const, lastAt: opensAt }

describe('judgeScan', () => {
  it('admits a first entry within the window, and refuses a second', () => {
    expect(judgeScan(base)).toBeNull()
    expect(judgeScan({ ...base, state: entered })).toBe('already_redeemed')
  })

  it('admits again with allow_multiple_entries, or after an exit with allow_entry_after_exit', () => {
    expect(judgeScan({ ...base, state: entered, list: { allowMultipleEntries: true, allowEntryAfterExit: false } })).toBeNull()
    expect(judgeScan({ ...base, state: wentOut })).toBeNull()
    expect(judgeScan({ ...base, state: wentOut, list: { allowMultipleEntries: false, allowEntryAfterExit: false } })).toBe('already_redeemed')
  })

  it('refuses an entry before the ticket’s date or from 06:00 of the next day, but lets anyone out', () => {
    expect(judgeScan({ ...base, at: new Date(opensAt.getTime() - 1) })).toBe('invalid_time')
    expect(judgeScan({ ...base, at: closesAt })).toBe('invalid_time')
    expect(judgeScan({ ...base, at: new Date(closesAt.getTime() - 1) })).toBeNull()
    expect(judgeScan({ ...base, type: 'exit', at: closesAt })).toBeNull()
  })

  it('refuses a voided ticket, in and out', () => {
    expect(judgeScan({ ...base, ticket: { ...base.ticket, status: 'voided' } })).toBe('voided')
    expect(judgeScan({ ...base, type: 'exit', ticket: { ...base.ticket, status: 'voided' } })).toBe('voided')
  })

  it('refuses a ticket of an unpaid order (pending or expired) as unpaid, in and out, before its window is judged', () => {
    for (const status of ['pending', 'expired'] as const) {
      const unpaid = { ...base.ticket, status }
      expect(judgeScan({ ...base, ticket: unpaid })).toBe('unpaid')
      expect(judgeScan({ ...base, type: 'exit', ticket: unpaid })).toBe('unpaid')
      expect(judgeScan({ ...base, at: closesAt, ticket: unpaid })).toBe('unpaid')
      expect(judgeScan({ ...base, state: entered, ticket: unpaid })).toBe('unpaid')
    }
  })

  it('lets force override every reason but invalid and ambiguous', () => {
    expect(['voided', 'unpaid', 'already_redeemed', 'product', 'invalid_time'].every((r) => overridable(r as never))).toBe(true)
    expect(overridable('invalid')).toBe(false)
    expect(overridable('ambiguous')).toBe(false)
  })
})

describe('countsAt', () => {
  it('takes the earlier of the gate’s time and the server’s: a fast clock cannot place a scan in the future', () => {
    const receivedAt = new Date('2030-05-01T20:00:00Z')
    const fast = new Date('2030-05-01T20:04:00Z')
    const offline = new Date('2030-05-01T18:00:00Z')
    expect(countsAt({ scannedAt: fast, receivedAt })).toEqual(receivedAt)
    expect(countsAt({ scannedAt: offline, receivedAt })).toEqual(offline)
  })
})
