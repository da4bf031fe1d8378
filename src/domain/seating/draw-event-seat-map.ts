import type { Db } from '../../platform/db/database.js'
import { getSeatMap, type GetSeatMapOptions } from './get-seat-map.js'
import { drawSeatMap } from './seat-map-svg.js'
import { findPlanDrawing } from './seats.repo.js'

export type DrawEventSeatMapOptions = GetSeatMapOptions & { highlight: readonly string[] }

const isLength = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0

/**
 * The seat map of a date of an event (getSeatMap: same access rules) drawn as SVG: each seat
 * in its category's colour while free, its state otherwise, `highlight`'s seats ringed (ids the
 * map does not have are ignored). The plan's `size` frames it when the plan gives one.
 */
export async function drawEventSeatMap(db: Db, { highlight, ...options }: DrawEventSeatMapOptions): Promise<string> {
  const map = await getSeatMap(db, options)
  const drawing = await findPlanDrawing(db, map.plan_id)
  const size = drawing?.size
  return drawSeatMap({
    seats: map.seats,
    categories: drawing?.categories ?? [],
    size: size && isLength(size.width) && isLength(size.height) ? { width: size.width, height: size.height } : undefined,
    highlight: new Set(highlight),
  })
}
