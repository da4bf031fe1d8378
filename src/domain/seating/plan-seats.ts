import type { PlanCategory } from './seating.table.js'
import type { TPlanDocument } from './plan-format.js'

/** One seat of a plan as `seating_plan_seats` stores it (see the table for what each field means). */
export type PlanSeat = {
  seatId: string
  zoneIndex: number
  zone: string
  rowIndex: number
  row: string
  number: string
  category: string
  x: number
  y: number
  ord: number
  run: number
  rowSeats: number
}

/** A gap wider than this many times its row's median gap is an aisle (docs/seating.md). */
export const AISLE_FACTOR = 1.5

/** Colours of categories whose plan gives none (or none that is safe to draw), by the category's index. */
export const CATEGORY_PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'] as const

// A hex colour or a CSS colour name: what a plan's colour may be to be drawn as given.
const SAFE_COLOR = /^(#[0-9a-f]{3,8}|[a-z]{3,30})$/i

/** The colour a category is drawn in: the plan's, if it is a plain CSS colour, else the palette's. */
export const categoryColor = (color: string | undefined, index: number) =>
  color !== undefined && SAFE_COLOR.test(color.trim()) ? color.trim() : CATEGORY_PALETTE[index % CATEGORY_PALETTE.length]!

const median = (sorted: number[]) => {
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * A checked plan (`checkPlan`) as one record per seat, in the plan's order, and its categories
 * with their colours and seat counts. Positions become absolute (zone + row + seat, as pretix
 * draws them). `rowIndex` counts rows across the whole plan, so that it alone names a row and
 * ordering by it (or by zone, then it) is the plan's order. Within a row, `ord` numbers the seats by
 * x, then y; a new `run` starts after a gap (the distance between two consecutive seats) wider than
 * AISLE_FACTOR times the row's median gap. Pure: no database, no clock.
 */
export function planSeats(plan: TPlanDocument): { seats: PlanSeat[]; categories: PlanCategory[] } {
  const seats: PlanSeat[] = []
  const counts = new Map<string, number>()
  let rowIndex = 0
  plan.zones.forEach((zone, zoneIndex) => {
    for (const row of zone.rows) {
      const ox = zone.position.x + (row.position?.x ?? 0)
      const oy = zone.position.y + (row.position?.y ?? 0)
      const inRow = row.seats.map((seat) => ({ seat, x: ox + seat.position.x, y: oy + seat.position.y })).sort((a, b) => a.x - b.x || a.y - b.y)
      const gaps = inRow.slice(1).map((s, i) => Math.hypot(s.x - inRow[i]!.x, s.y - inRow[i]!.y))
      const aisle = gaps.length > 0 ? AISLE_FACTOR * median([...gaps].sort((a, b) => a - b)) : 0
      let run = 0
      inRow.forEach(({ seat, x, y }, ord) => {
        if (ord > 0 && gaps[ord - 1]! > aisle) run++
        counts.set(seat.category, (counts.get(seat.category) ?? 0) + 1)
        seats.push({
          seatId: seat.seat_guid,
          zoneIndex,
          zone: zone.name ?? '',
          rowIndex,
          row: row.row_number,
          number: seat.seat_number,
          category: seat.category,
          x,
          y,
          ord,
          run,
          rowSeats: inRow.length,
        })
      })
      rowIndex++
    }
  })
  const categories = plan.categories.map((category, i) => ({
    name: category.name,
    color: categoryColor(category.color, i),
    seats: counts.get(category.name) ?? 0,
  }))
  return { seats, categories }
}
