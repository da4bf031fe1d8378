import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { gridPlan } from '../../src/domain/seating/grid-plan.js'
import type { TPlanDocument } from '../../src/domain/seating/plan-format.js'
import { seatingPlanSeats, seatingPlans } from '../../src/domain/seating/seating.table.js'
import type { AdmClient } from '../support/adm-client.js'
import { createTestEvent, dayFromToday } from './catalog.js'

/** A row of a test plan: its seats' category, how many seats, and after which seat numbers an aisle falls. */
export type TestRow = { category: string; seats: number; aisleAfter?: number[] }

/**
 * A seating plan of the seller written as rows (one zone; rows A, B, … in order; seat ids
 * `${row}${number}`, numbered from 1 left to right), without the plan routes' parsing in the way.
 */
export async function createTestPlan(app: FastifyInstance, sellerId: string, rows: TestRow[], name = `Plan ${randomBytes(3).toString('hex')}`) {
  const categories = [...new Set(rows.map((row) => row.category))]
  const seats = rows.flatMap((row, r) => {
    const label = String.fromCharCode(65 + r)
    let run = 0
    return Array.from({ length: row.seats }, (_, n) => {
      if (n > 0 && row.aisleAfter?.includes(n)) run++
      return {
        seatId: `${label}${n + 1}`,
        zoneIndex: 0,
        zone: 'Plateia',
        rowIndex: r,
        row: label,
        number: String(n + 1),
        category: row.category,
        x: n * 10 + run * 30,
        y: r * 10,
        ord: n,
        run,
        rowSeats: row.seats,
      }
    })
  })
  const [plan] = await app.db
    .insert(seatingPlans)
    .values({
      sellerId,
      name,
      plan: { name, categories: categories.map((c) => ({ name: c })), zones: [] },
      categories: categories.map((c) => ({ name: c, color: '#888888', seats: seats.filter((s) => s.category === c).length })),
      seats: seats.length,
    })
    .returning()
  await app.db.insert(seatingPlanSeats).values(seats.map((seat) => ({ ...seat, planId: plan!.id })))
  return plan!
}

/** The variants of a seated inventory that sells a party's tickets at two prices. */
export const PARTY_VARIANTS = [
  { name: 'Inteira', description: 'Full price', type: 'full' },
  { name: 'Meia-entrada', description: 'Half price', type: 'half', price: 2500 },
]

/**
 * A published event of the seller whose one inventory sells `category` of a new plan of these rows,
 * made through the back office (`adm`); `extra`: more of the inventory's fields (variants, waiting list).
 */
export async function createSeatedInventory(
  app: FastifyInstance,
  adm: AdmClient,
  sellerId: string,
  rows: TestRow[],
  category = 'Plateia',
  extra: Record<string, unknown> = {},
) {
  const plan = await createTestPlan(app, sellerId, rows)
  const event = await createTestEvent(app, sellerId)
  const res = await adm.post(`/events/${event.id}/inventories`, {
    date: dayFromToday(7),
    name: category,
    price: 5000,
    seating: { plan_id: plan.id, category },
    ...extra,
  })
  if (res.statusCode !== 201) throw new Error(`the seated inventory was refused: ${res.body}`)
  return { plan, event, inventory: res.json() as { id: string; capacity: number; available: number; seating: unknown } }
}

/**
 * Every character XML 1.0 forbids (docs/seating.md): the C0 controls but tab, line feed and carriage
 * return, U+FFFE and U+FFFF; NUL first, which no text of any request may carry anyway.
 */
export const XML_FORBIDDEN = [...[...Array(32).keys()].filter((c) => c !== 9 && c !== 10 && c !== 13), 0xfffe, 0xffff].map((c) => String.fromCharCode(c))

/**
 * A plan of 100,000 seats (250 rows of 400) whose every seat number and guid carries one of the
 * characters XML forbids, all of them in turn but NUL (with `nul`, NUL too). Some 10 MiB as JSON,
 * under the plan routes' 16 MiB.
 */
export function forbiddenLabels({ nul = false } = {}): TPlanDocument {
  const plan = gridPlan({ rows: 250, seatsPerRow: 400 })
  const chars = nul ? XML_FORBIDDEN : XML_FORBIDDEN.slice(1)
  let n = 0
  for (const row of plan.zones[0]!.rows) {
    for (const seat of row.seats) {
      seat.seat_guid += chars[n % chars.length]
      seat.seat_number += chars[(n + 1) % chars.length]
      n++
    }
  }
  return plan
}
