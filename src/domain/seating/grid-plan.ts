import type { TPlanDocument } from './plan-format.js'

/** Spacing as pretix's editor lays seats out: radius 10, 30 px from centre to centre, rows 35 px apart. */
export const SEAT_SPACING = 30
export const ROW_SPACING = 35
const MARGIN = 40
/** An aisle is as wide as two seats: well over the 1.5 x median gap that marks one. */
const AISLE_WIDTH = 2 * SEAT_SPACING

export type GridPlanOptions = {
  name?: string
  /** The zone's name, also the first part of every `seat_guid` (default `Main`). */
  zone?: string
  rows: number
  seatsPerRow: number
  /** The rows' names, front to back (default 1, 2, …); also in the `seat_guid`s. */
  rowNames?: string[]
  /** An aisle after this many seats of every row (e.g. 7 of 14: two blocks of 7). */
  aisleAfter?: number
  /**
   * Categories by row index (0-based); a row named by none belongs to the first category without
   * `rows` (else to the first). Default: one category, `Standard`.
   */
  categories?: { name: string; color?: string; rows?: number[] }[]
}

/**
 * A rectangular plan in pretix's format, for tests, the demo and the benchmark: rows numbered from
 * 1 front to back (or named by `rowNames`), seats numbered from 1 left to right, `seat_guid` = `${zone}-${row}-${number}`
 * (stable, so a test can name a seat). Positions are relative as pretix writes them: the row at
 * its offset in the zone, each seat at its offset in the row.
 */
export function gridPlan(options: GridPlanOptions): TPlanDocument {
  const zone = options.zone ?? 'Main'
  const categories = options.categories ?? [{ name: 'Standard' }]
  const rest = categories.find((c) => c.rows === undefined) ?? categories[0]!
  const categoryOfRow = (row: number) => categories.find((c) => c.rows?.includes(row))?.name ?? rest.name
  const aisle = options.aisleAfter !== undefined && options.aisleAfter > 0 && options.aisleAfter < options.seatsPerRow ? options.aisleAfter : undefined
  const seatX = (i: number) => i * SEAT_SPACING + (aisle !== undefined && i >= aisle ? AISLE_WIDTH - SEAT_SPACING : 0)
  const rowName = (r: number) => options.rowNames?.[r] ?? String(r + 1)
  const rows = Array.from({ length: options.rows }, (_, r) => ({
    row_number: rowName(r),
    position: { x: 0, y: r * ROW_SPACING },
    seats: Array.from({ length: options.seatsPerRow }, (_, i) => ({
      seat_guid: `${zone}-${rowName(r)}-${i + 1}`,
      seat_number: String(i + 1),
      position: { x: seatX(i), y: 0 },
      category: categoryOfRow(r),
    })),
  }))
  return {
    name: options.name ?? `${options.rows} x ${options.seatsPerRow}`,
    categories: categories.map(({ name, color }) => (color === undefined ? { name } : { name, color })),
    size: {
      width: 2 * MARGIN + seatX(options.seatsPerRow - 1),
      height: 2 * MARGIN + (options.rows - 1) * ROW_SPACING,
    },
    zones: [{ name: zone, position: { x: MARGIN, y: MARGIN }, rows, areas: [] }],
  }
}
