import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { gridPlan } from '../../src/domain/seating/grid-plan.js'
import { ZPlanDocument, type TPlanDocument } from '../../src/domain/seating/plan-format.js'
import { CATEGORY_PALETTE, planSeats } from '../../src/domain/seating/plan-seats.js'

const row = (row_number: string, xs: number[], extra: Partial<TPlanDocument['zones'][number]['rows'][number]> = {}) => ({
  row_number,
  seats: xs.map((x, i) => ({ seat_guid: `${row_number}-${i + 1}`, seat_number: String(i + 1), position: { x, y: 0 }, category: 'A' })),
  ...extra,
})
const plan = (rows: ReturnType<typeof row>[], zone = { x: 0, y: 0 }): TPlanDocument => ({
  name: 'P',
  categories: [{ name: 'A' }],
  zones: [{ name: 'Z', position: zone, rows }],
})
const shape = (seats: ReturnType<typeof planSeats>['seats']) => seats.map((s) => `${s.seatId}:${s.ord}/${s.run}/${s.rowSeats}`)

describe('planSeats', () => {
  it('places a seat at zone + row + seat position, as pretix does', () => {
    const { seats } = planSeats(plan([row('1', [5], { position: { x: 100, y: 35 } }), row('2', [5])], { x: 40, y: 60 }))
    expect(seats.map(({ x, y }) => [x, y])).toEqual([
      [145, 95],
      [45, 60],
    ])
  })

  it('orders a row by x, whatever the order of the plan, and numbers its rows across the plan', () => {
    const doc = plan([row('1', [60, 0, 30])])
    doc.zones.push({ name: 'Y', position: { x: 0, y: 100 }, rows: [row('1', [0, 30])] })
    for (const s of doc.zones[1]!.rows[0]!.seats) s.seat_guid = `Y-${s.seat_guid}`
    const { seats } = planSeats(doc)
    expect(seats.map((s) => [s.seatId, s.zoneIndex, s.zone, s.rowIndex, s.ord])).toEqual([
      ['1-2', 0, 'Z', 0, 0],
      ['1-3', 0, 'Z', 0, 1],
      ['1-1', 0, 'Z', 0, 2],
      ['Y-1-1', 1, 'Y', 1, 0],
      ['Y-1-2', 1, 'Y', 1, 1],
    ])
  })

  it('breaks a row at an aisle: a gap over 1.5 x the median gap', () => {
    // Seven seats 30 apart, an aisle of 60, seven more.
    const xs = [...Array.from({ length: 7 }, (_, i) => i * 30), ...Array.from({ length: 7 }, (_, i) => 240 + i * 30)]
    const { seats } = planSeats(plan([row('1', xs)]))
    expect(seats.map((s) => s.run)).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1])
    expect(seats.every((s) => s.rowSeats === 14)).toBe(true)
    // A gap of exactly 1.5 x the median is no aisle.
    expect(planSeats(plan([row('1', [0, 30, 60, 105, 135])])).seats.map((s) => s.run)).toEqual([0, 0, 0, 0, 0])
  })

  it('takes the median of an even number of gaps as the mean of the middle two', () => {
    // Gaps 10, 20, 30, 70: median 25, so 70 (> 37.5) is an aisle and 30 is not.
    expect(shape(planSeats(plan([row('1', [0, 10, 30, 60, 130])])).seats)).toEqual(['1-1:0/0/5', '1-2:1/0/5', '1-3:2/0/5', '1-4:3/0/5', '1-5:4/1/5'])
    // Odd: gaps 10, 10, 40: median 10, 40 is an aisle.
    expect(planSeats(plan([row('1', [0, 10, 20, 60])])).seats.map((s) => s.run)).toEqual([0, 0, 0, 1])
  })

  it('gives a single-seat row one run of one seat, and a row of two no aisle', () => {
    expect(shape(planSeats(plan([row('1', [0]), row('2', [0, 500])])).seats)).toEqual(['1-1:0/0/1', '2-1:0/0/2', '2-2:1/0/2'])
  })

  it('measures gaps along a slanted or curved row by distance, not by x alone', () => {
    const slanted = row('1', [0, 30, 60, 90])
    slanted.seats.forEach((s, i) => {
      s.position.y = i * 40
    })
    expect(planSeats(plan([slanted])).seats.map((s) => s.run)).toEqual([0, 0, 0, 0])
  })

  it("counts each category's seats, with the plan's colour or the palette's", () => {
    const doc = gridPlan({
      rows: 4,
      seatsPerRow: 5,
      categories: [{ name: 'Front', color: '#ff0000', rows: [0] }, { name: 'Back' }, { name: 'Empty', color: 'url(javascript:x)' }],
    })
    expect(planSeats(doc).categories).toEqual([
      { name: 'Front', color: '#ff0000', seats: 5 },
      { name: 'Back', color: CATEGORY_PALETTE[1], seats: 15 },
      { name: 'Empty', color: CATEGORY_PALETTE[2], seats: 0 },
    ])
  })

  it('reads the pretix fixture: two zones, aisles in every row, two categories', () => {
    const doc = ZPlanDocument.parse(JSON.parse(readFileSync(new URL('../fixtures/seating/pretix-theatre.json', import.meta.url), 'utf8')))
    const { seats, categories } = planSeats(doc)
    expect(categories).toEqual([
      { name: 'Plateia', color: '#2f7ed8', seats: 40 },
      { name: 'Balcão', color: '#d84f2f', seats: 16 },
    ])
    const stallsA = seats.filter((s) => s.zone === 'Plateia' && s.row === 'A')
    expect(stallsA.map((s) => s.run)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    expect(stallsA[0]).toMatchObject({ seatId: 'stalls-A-1', x: 70, y: 110, ord: 0, rowSeats: 10 })
    expect(new Set(seats.map((s) => s.rowIndex)).size).toBe(6)
  })

  it('a grid plan of 10 x 14 with an aisle after 7', () => {
    const { seats } = planSeats(gridPlan({ rows: 10, seatsPerRow: 14, aisleAfter: 7 }))
    expect(seats).toHaveLength(140)
    const row3 = seats.filter((s) => s.rowIndex === 2)
    expect(row3.map((s) => s.number)).toEqual(Array.from({ length: 14 }, (_, i) => String(i + 1)))
    expect(row3.map((s) => s.run)).toEqual([...Array(7).fill(0), ...Array(7).fill(1)])
  })
})
