import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findVisibleEvent } from '../catalog/catalog.repo.js'
import type { EventScope } from '../inventory/availability.js'
import { findSeatedInventories, readMapSeats, type MapSeatRow } from './seats.repo.js'

export type GetSeatMapOptions = { sellerId: string; scope: EventScope; eventId: string; date?: string | undefined }

/** The seats of one date of an event, as a storefront sees them (API.md 7.7); `x` and `y` are where the map draws each. */
export type SeatMapView = { event_id: string; date: string; plan_id: string; seats: MapSeatRow[] }

/**
 * Every seat that one of the event's seated inventories sells on the date, each free, taken
 * (held or sold: the storefront never learns who) or blocked, in the plan's order. A draft, an
 * event of another seller or outside the affiliate's scope: 404. Without `date`, the event's one
 * date with seated inventories; when it has several: 400 naming `date`; none (or none on the date
 * asked): 404. Every seated inventory of a date uses one plan (inventory-seating.ts).
 */
export async function getSeatMap(db: Db, { sellerId, scope, eventId, date }: GetSeatMapOptions): Promise<SeatMapView> {
  const event = await findVisibleEvent(db, sellerId, scope, { id: eventId })
  if (!event) throw new AppError('not_found')
  const seated = await findSeatedInventories(db, event.id, date)
  const dates = [...new Set(seated.map((inventory) => inventory.date))]
  if (dates.length === 0) throw new AppError('not_found', { message: date === undefined ? 'The event sells no seats' : 'The event sells no seats on this date' })
  if (dates.length > 1) {
    throw new AppError('validation_error', {
      details: [{ path: 'querystring.date', message: `the event sells seats on several dates (${dates.join(', ')}): name one` }],
    })
  }
  return {
    event_id: event.id,
    date: dates[0]!,
    plan_id: seated[0]!.planId,
    seats: await readMapSeats(
      db,
      seated.map((inventory) => inventory.id),
    ),
  }
}
