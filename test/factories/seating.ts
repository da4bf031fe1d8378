import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { seatingPlanSeats, seatingPlans } from '../../src/domain/seating/seating.table.js'

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
