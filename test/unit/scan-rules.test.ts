import { describe, expect, it } from 'vitest'
import { judgeScan, listCovers, overridable, type ScanFacts } from '../../src/domain/checkin/scan-rules.js'

const opensAt = new Date('2030-05-01T03:00:00Z')
const closesAt = new Date('2030-05-02T09:00:00Z')
const base: ScanFacts = {
  type: 'entry',
  scannedAt: new Date('2030-05-01T20:00:00Z'),
  ticket: { voided: false, opensAt, closesAt },
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
    expect(judgeScan({ ...base, scannedAt: new Date(opensAt.getTime() - 1) })).toBe('invalid_time')
    expect(judgeScan({ ...base, scannedAt: closesAt })).toBe('invalid_time')
    expect(judgeScan({ ...base, scannedAt: new Date(closesAt.getTime() - 1) })).toBeNull()
    expect(judgeScan({ ...base, type: 'exit', scannedAt: closesAt })).toBeNull()
  })

  it('refuses a voided ticket, in and out', () => {
    expect(judgeScan({ ...base, ticket: { ...base.ticket, voided: true } })).toBe('voided')
    expect(judgeScan({ ...base, type: 'exit', ticket: { ...base.ticket, voided: true } })).toBe('voided')
  })

  it('lets force override every reason but invalid and ambiguous', () => {
    expect(['voided', 'already_redeemed', 'product', 'invalid_time'].every((r) => overridable(r as never))).toBe(true)
    expect(overridable('invalid')).toBe(false)
    expect(overridable('ambiguous')).toBe(false)
  })
})

describe('listCovers', () => {
  const ticket = { event_id: 'e', inventory_id: 'i', variant: 'VIP' }
  it('covers by event, then inventories and variants when the list names them', () => {
    expect(listCovers({ eventId: 'e', inventoryIds: null, variants: null }, ticket)).toBe(true)
    expect(listCovers({ eventId: 'x', inventoryIds: null, variants: null }, ticket)).toBe(false)
    expect(listCovers({ eventId: 'e', inventoryIds: ['j'], variants: null }, ticket)).toBe(false)
    expect(listCovers({ eventId: 'e', inventoryIds: ['i'], variants: ['VIP'] }, ticket)).toBe(true)
    expect(listCovers({ eventId: 'e', inventoryIds: null, variants: ['VIP'] }, { ...ticket, variant: null })).toBe(false)
  })
})
