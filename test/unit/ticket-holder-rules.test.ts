import { describe, expect, it } from 'vitest'
import { TICKET_STATUSES } from '../../src/domain/orders/order-view.js'
import { codeChangeRefusal, DOCUMENT_PATTERN, holderChangeRefusal, sameHolder } from '../../src/domain/tickets/holder.js'

const valid = { status: 'valid', checkedIn: false, holderChanges: 0 } as const

describe('holderChangeRefusal (docs/transfers.md)', () => {
  it('lets the buyer change a valid ticket’s holder up to holder_changes_max times, staff without limit', () => {
    expect(holderChangeRefusal(valid, 'buyer', 2)).toBeNull()
    expect(holderChangeRefusal({ ...valid, holderChanges: 1 }, 'buyer', 2)).toBeNull()
    expect(holderChangeRefusal({ ...valid, holderChanges: 2 }, 'buyer', 2)).toMatchObject({ code: 'holder_locked', details: { holder_changes_max: 2 } })
    expect(holderChangeRefusal(valid, 'buyer', 0)?.code).toBe('holder_locked')
    expect(holderChangeRefusal({ ...valid, holderChanges: 20 }, 'staff', 0)).toBeNull()
  })

  it('locks the holder after a check-in, for staff too', () => {
    expect(holderChangeRefusal({ ...valid, checkedIn: true }, 'buyer', 2)?.code).toBe('holder_locked')
    expect(holderChangeRefusal({ ...valid, checkedIn: true }, 'staff', 2)?.code).toBe('holder_locked')
  })

  it('refuses a ticket without a live code before anything else: pending as order_pending, the dead ones as ticket_voided', () => {
    for (const status of TICKET_STATUSES) {
      const expected = { valid: null, pending: 'order_pending', voided: 'ticket_voided', expired: 'ticket_voided', transferred: 'ticket_voided' }[status]
      expect(codeChangeRefusal(status)?.code ?? null, status).toBe(expected)
      if (expected) expect(holderChangeRefusal({ status, checkedIn: true, holderChanges: 9 }, 'buyer', 2)?.code, status).toBe(expected)
    }
    expect(codeChangeRefusal('transferred')?.details).toEqual({ status: 'transferred' })
  })
})

describe('documents and holders', () => {
  it('takes 3..20 letters or digits', () => {
    for (const document of ['123', 'abc', '12345678901', 'RG12345X', '1'.repeat(20)]) expect(DOCUMENT_PATTERN.test(document), document).toBe(true)
    for (const document of ['12', '1'.repeat(21), '123.456.789-01', 'AB 12', 'ção12', '']) expect(DOCUMENT_PATTERN.test(document), document).toBe(false)
  })

  it('compares a holder by name and document', () => {
    expect(sameHolder({ name: 'Ana', document: null }, { name: 'Ana', document: null })).toBe(true)
    expect(sameHolder({ name: 'Ana', document: null }, { name: 'Ana', document: '123' })).toBe(false)
    expect(sameHolder({ name: 'Ana', document: '123' }, { name: 'Ana Maria', document: '123' })).toBe(false)
  })
})
