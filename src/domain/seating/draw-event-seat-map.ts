import type { Db } from '../../platform/db/database.js'
import { readSeatMap, type GetSeatMapOptions } from './get-seat-map.js'
import type { PlanPlacesMemo } from './plan-places-memo.js'
import { drawSeatMap } from './seat-map-svg.js'
import type { Locale } from '../sellers/seller-settings.js'

export type DrawEventSeatMapOptions = GetSeatMapOptions & { highlight: readonly string[]; locale: Locale }

/**
 * The seat map of a date of an event (readSeatMap: same access rules) drawn as SVG: each seat in
 * its category's colour while free, its state otherwise, `highlight`'s seats ringed (ids the map
 * does not have are ignored), its words in the seller's language. The plan's `size` frames it when the plan gives one.
 */
export async function drawEventSeatMap(db: Db, places: PlanPlacesMemo, { highlight, locale, ...options }: DrawEventSeatMapOptions): Promise<string> {
  const map = await readSeatMap(db, places, options)
  return drawSeatMap({
    // A reserved seat is drawn as taken: nobody but the waiting list can have it.
    seats: map.seats.map(({ place, status }) => ({ ...place, status: status === 'reserved' ? 'taken' : status })),
    categories: map.plan.categories,
    size: map.plan.size,
    highlight: new Set(highlight),
    locale,
  })
}
