import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DATE_PATTERN, DATE_TIME_PATTERN, ZDateInput, ZInstantInput } from '../../src/platform/http/schemas.js'

const pad = (n: number, width: number) => String(n).padStart(width, '0')
const dayString = fc
  .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
  .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`)
const nearEdges = fc
  .tuple(fc.constantFrom(1899, 1900, 1904, 1999, 2000, 2024, 2100, 2199, 2200), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }))
  .map(([y, m, d]) => `${y}-${pad(m, 2)}-${pad(d, 2)}`)

/** Every day from `from` for `days` days, as `YYYY-MM-DD`. */
const daysFrom = (from: string, days: number) => Array.from({ length: days }, (_, n) => new Date(Date.parse(from) + n * 86_400_000).toISOString().slice(0, 10))

describe('the date range of requests', () => {
  it('accepts exactly the calendar days of 1900-01-01 .. 2199-12-31, and the document pattern says the same', () => {
    const pattern = new RegExp(DATE_PATTERN)
    const agree = (day: string) => {
      expect(pattern.test(day), day).toBe(ZDateInput.safeParse(day).success)
    }
    fc.assert(
      fc.property(fc.oneof(dayString, nearEdges), (day) => agree(day)),
      { numRuns: 5000 },
    )
    for (const day of [...daysFrom('1899-12-25', 70), ...daysFrom('2000-02-25', 10), ...daysFrom('2100-02-25', 10), ...daysFrom('2199-12-25', 14)]) agree(day)
    expect(ZDateInput.safeParse('1900-01-01').success).toBe(true)
    expect(ZDateInput.safeParse('2199-12-31').success).toBe(true)
    expect(ZDateInput.safeParse('2000-02-29').success).toBe(true)
    for (const day of ['1899-12-31', '2200-01-01', '0000-01-01', '9999-12-31', '2100-02-29', '1900-02-29'])
      expect(ZDateInput.safeParse(day).success, day).toBe(false)
  })

  it('accepts instants from 1900-01-01T00:00:00Z to 2199-12-31T23:59:59.999Z, in UTC whatever the offset', () => {
    const pattern = new RegExp(DATE_TIME_PATTERN)
    fc.assert(
      fc.property(fc.oneof(dayString, nearEdges), fc.constantFrom('T00:00:00Z', 'T23:59:59.999Z', 'T12:30:00Z'), (day, time) => {
        expect(pattern.test(day + time), day + time).toBe(ZInstantInput.safeParse(day + time).success)
      }),
      { numRuns: 3000 },
    )
    for (const ok of ['1900-01-01T00:00:00Z', '2199-12-31T23:59:59.999Z', '1900-01-01T00:00:00-03:00', '2199-12-31T23:00:00-00:59'])
      expect(ZInstantInput.safeParse(ok).success, ok).toBe(true)
    for (const refused of [
      '1899-12-31T23:59:59.999Z',
      '2200-01-01T00:00:00Z',
      '1900-01-01T00:30:00+01:00',
      '2199-12-31T23:30:00-01:00',
      '0000-01-01T00:00:00Z',
    ])
      expect(ZInstantInput.safeParse(refused).success, refused).toBe(false)
  })

  it('gives a malformed date one message, the format one, and an out-of-range one the range', () => {
    expect(ZDateInput.safeParse('2024-13-01').error?.issues).toHaveLength(1)
    expect(ZDateInput.safeParse('0000-01-01').error?.issues.map((i) => i.message)).toEqual(['must lie between 1900-01-01 and 2199-12-31'])
    expect(ZInstantInput.safeParse('yesterday').error?.issues).toHaveLength(1)
  })
})
