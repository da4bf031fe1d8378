import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findEventById, type EventRow } from './events.repo.js'

/** An event by id, whatever its status; 404 when there is none. */
export async function getEvent(db: Db, eventId: string): Promise<EventRow> {
  const event = await findEventById(db, eventId)
  if (!event) throw new AppError('not_found')
  return event
}
