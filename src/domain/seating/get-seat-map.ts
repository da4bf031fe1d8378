import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findVisibleEvent } from '../catalog/catalog.repo.js'
import type { EventScope } from '../inventory/availability.js'
import type { Seat } from '../inventory/inventory.repo.js'
import type { PlanPlacesMemo } from './plan-places-memo.js'
import type { PlanPlaces } from './plan-places-memo.js'
import { findSeatedInventories, readTakenSeats, type PlanPlace } from './seats.repo.js'

export type GetSeatMapOptions = { sellerId: string; scope: EventScope; eventId: string; date?: string | undefined }

/** A seat's state as a storefront may know it: held and sold are both taken; reserved, free but held back for the waiting list. */
export type MapSeatStatus = 'free' | 'taken' | 'blocked' | 'reserved'
/** A seat of the map (docs/seating.md): the Seat, the inventory selling it and its state. */
export type MapSeat = Seat & { inventory_id: string; status: MapSeatStatus }
export type SeatMapView = { event_id: string; date: string; plan_id: string; seats: MapSeat[] }

/** The map before it is written out: each seat the date sells, where it is drawn, who sells it and how it stands. */
export type SeatMapReading = {
  eventId: string
  date: string
  planId: string
  plan: PlanPlaces
  seats: { place: PlanPlace; inventoryId: string; status: MapSeatStatus }[]
}

/**
 * Reads the map of a date of an event: every seat that one of its seated inventories sells, in
 * the plan's order, free, taken (held or sold: the storefront never learns who) or blocked, as
 * seat_standings says, or reserved (free, but held back for the inventory's waiting list). A draft, an event of another seller or outside the affiliate's scope:
 * 404. Without `date`, the event's one date with seated inventories; when it has several: 400
 * naming `date`; none (or none on the date asked): 404. Every seated inventory of a date uses one
 * plan (inventory-seating.ts), each of its own category.
 */
export async function readSeatMap(db: Db, places: PlanPlacesMemo, { sellerId, scope, eventId, date }: GetSeatMapOptions): Promise<SeatMapReading> {
  const event = await findVisibleEvent(db, sellerId, scope, { id: eventId })
  if (!event) throw new AppError('not_found')
  const seated = await findSeatedInventories(db, event.id, date)
  const dates = [...new Set(seated.map((inventory) => inventory.date))]
  if (dates.length === 0)
    throw new AppError('not_found', { message: date === undefined ? 'The event sells no seats' : 'The event sells no seats on this date' })
  if (dates.length > 1) {
    throw new AppError('validation_error', {
      details: [{ path: 'querystring.date', message: `the event sells seats on several dates (${dates.join(', ')}): name one` }],
    })
  }
  const planId = seated[0]!.planId
  const [plan, taken] = await Promise.all([
    places.placesOf(db, planId),
    readTakenSeats(
      db,
      seated.map((inventory) => inventory.id),
    ),
  ])
  const inventoryOf = new Map(seated.map((inventory) => [inventory.category, inventory.id]))
  const statusOf = new Map(taken.map((seat) => [seat.seat_id, seat.status === 'blocked' || seat.status === 'reserved' ? seat.status : 'taken'] as const))
  const seats: SeatMapReading['seats'] = []
  for (const place of plan.places) {
    const inventoryId = inventoryOf.get(place.category)
    if (inventoryId !== undefined) seats.push({ place, inventoryId, status: statusOf.get(place.id) ?? 'free' })
  }
  return { eventId: event.id, date: dates[0]!, planId, plan, seats }
}

/** The seat map of a date of an event as the API writes it (readSeatMap: same rules). */
export async function getSeatMap(db: Db, places: PlanPlacesMemo, options: GetSeatMapOptions): Promise<SeatMapView> {
  const map = await readSeatMap(db, places, options)
  return {
    event_id: map.eventId,
    date: map.date,
    plan_id: map.planId,
    seats: map.seats.map(({ place, inventoryId, status }) => ({
      id: place.id,
      zone: place.zone,
      row: place.row,
      number: place.number,
      category: place.category,
      inventory_id: inventoryId,
      status,
    })),
  }
}
