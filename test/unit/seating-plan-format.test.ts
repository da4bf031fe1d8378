import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { gridPlan } from '../../src/domain/seating/grid-plan.js'
import { checkPlan, checkPlanShape, MAX_PLAN_SEATS, ZPlanDocument, type TPlanDocument } from '../../src/domain/seating/plan-format.js'

const theatre = () => JSON.parse(readFileSync(new URL('../fixtures/seating/pretix-theatre.json', import.meta.url), 'utf8')) as unknown

const twoRows = (): TPlanDocument =>
  gridPlan({
    rows: 2,
    seatsPerRow: 4,
    categories: [
      { name: 'A', rows: [0] },
      { name: 'B', rows: [1] },
    ],
  })

describe("pretix's seating-plan format", () => {
  it('takes a plan exported from pretix as it is, keeping the properties it does not read', () => {
    const parsed = ZPlanDocument.parse(theatre())
    expect(checkPlan(parsed)).toEqual([])
    expect(parsed).toEqual(theatre())
    const seat = parsed.zones[0]!.rows[0]!.seats[0]! as Record<string, unknown>
    expect(seat).toMatchObject({ uuid: expect.any(String), radius: 10 })
    expect(parsed.zones[0]!.rows[0]).toMatchObject({ row_label: 'Row %s', seat_label: 'Seat %s' })
    expect(parsed.zones[0]!.areas).toHaveLength(1)
  })

  it('needs name, categories and zones, and seats with a guid, a number, a position and a category', () => {
    const result = ZPlanDocument.safeParse({
      name: 'X',
      categories: [],
      zones: [{ position: { x: 0, y: 0 }, rows: [{ row_number: '1', seats: [{ seat_guid: 'a' }] }] }],
    })
    expect(result.success).toBe(false)
    const paths = result.error!.issues.map((issue) => issue.path.join('.'))
    expect(paths).toEqual(expect.arrayContaining(['zones.0.rows.0.seats.0.seat_number', 'zones.0.rows.0.seats.0.position', 'zones.0.rows.0.seats.0.category']))
    expect(ZPlanDocument.safeParse({ zones: [], categories: [] }).success).toBe(false)
    expect(ZPlanDocument.safeParse('not a plan').success).toBe(false)
  })

  it('a grid plan is a sound plan', () => {
    const plan = gridPlan({ rows: 10, seatsPerRow: 14, aisleAfter: 7, categories: [{ name: 'Front', rows: [0, 1, 2, 3, 4] }, { name: 'Back' }] })
    expect(ZPlanDocument.parse(plan)).toEqual(plan)
    expect(checkPlan(plan)).toEqual([])
    expect(plan.zones[0]!.rows[9]!.seats[13]!.seat_guid).toBe('Main-10-14')
    expect(plan.zones[0]!.rows[9]!.seats[13]!.category).toBe('Back')
  })
})

describe('checkPlan', () => {
  it('names a seat of an unknown category at its path', () => {
    const plan = twoRows()
    plan.zones[0]!.rows[1]!.seats[3]!.category = 'Nope'
    expect(checkPlan(plan)).toEqual([{ path: 'plan.zones.0.rows.1.seats.3.category', message: 'is not the name of a category of the plan' }])
  })

  it('names the second seat of a seat_guid used twice', () => {
    const plan = twoRows()
    plan.zones[0]!.rows[1]!.seats[2]!.seat_guid = plan.zones[0]!.rows[0]!.seats[0]!.seat_guid
    expect(checkPlan(plan)).toEqual([{ path: 'plan.zones.0.rows.1.seats.2.seat_guid', message: 'is the seat_guid of another seat' }])
  })

  it('refuses a category named twice', () => {
    const plan = twoRows()
    plan.categories.push({ name: 'A' })
    expect(checkPlan(plan).map((d) => d.path)).toEqual(['plan.categories.2.name'])
  })

  it('refuses a plan without seats', () => {
    expect(checkPlan({ name: 'Empty', categories: [{ name: 'A' }], zones: [] })).toEqual([{ path: 'plan.zones', message: 'has no seats' }])
    expect(checkPlan({ name: 'Empty', categories: [], zones: [{ position: { x: 0, y: 0 }, rows: [{ row_number: '1', seats: [] }] }] })).toHaveLength(1)
  })

  it('refuses more than 100,000 seats', () => {
    expect(checkPlan(gridPlan({ rows: 100, seatsPerRow: 1000 }))).toEqual([])
    const details = checkPlan(gridPlan({ rows: 101, seatsPerRow: 991 }))
    expect(details).toEqual([{ path: 'plan.zones', message: `has 100091 seats, more than ${MAX_PLAN_SEATS}` }])
  })

  it('names at most 50 problems', () => {
    const plan = gridPlan({ rows: 10, seatsPerRow: 10 })
    for (const row of plan.zones[0]!.rows) for (const seat of row.seats) seat.category = 'Nope'
    expect(checkPlan(plan)).toHaveLength(50)
  })
})

describe('checkPlanShape', () => {
  it('finds nothing wrong with a plan of the right shape', () => {
    expect(checkPlanShape(theatre())).toEqual([])
    expect(checkPlanShape(gridPlan({ rows: 2, seatsPerRow: 2 }))).toEqual([])
  })

  it('names what is wrong at its path, level by level', () => {
    expect(checkPlanShape('junk')).toEqual([{ path: 'plan', message: expect.any(String) }])
    expect(checkPlanShape({ name: 'X', categories: [] }).map((d) => d.path)).toEqual(['plan.zones'])
    const plan = gridPlan({ rows: 2, seatsPerRow: 2 }) as unknown as { zones: { rows: { position?: unknown; seats: Record<string, unknown>[] }[] }[] }
    plan.zones[0]!.rows[0]!.position = { x: 'left' }
    plan.zones[0]!.rows[1]!.seats[1]!.seat_number = 2
    expect(checkPlanShape(plan).map((d) => d.path)).toEqual([
      'plan.zones.0.rows.0.position.x',
      'plan.zones.0.rows.0.position.y',
      'plan.zones.0.rows.1.seats.1.seat_number',
    ])
  })

  it('stops at 50 problems, and counts seats before reading any', () => {
    const seats = Array.from({ length: 1000 }, () => ({}))
    expect(checkPlanShape({ name: 'X', categories: [], zones: [{ position: { x: 0, y: 0 }, rows: [{ row_number: '1', seats }] }] })).toHaveLength(50)
    const many = Array.from({ length: MAX_PLAN_SEATS + 1 }, () => null)
    expect(checkPlanShape({ name: 'X', categories: [], zones: [{ position: { x: 0, y: 0 }, rows: [{ row_number: '1', seats: many }] }] })).toEqual([
      { path: 'plan.zones', message: `has ${MAX_PLAN_SEATS + 1} seats, more than ${MAX_PLAN_SEATS}` },
    ])
  })
})
