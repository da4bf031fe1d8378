import { AppError } from '../../platform/errors.js'
import type { EventVenue } from './events.table.js'

/*
 * When and where a show happens (docs/selling.md): an inventory's start and doors on its date, on the
 * seller's clock, and its event's venue. The door's window of entry built on them is SQL, written
 * once (WINDOW_COLUMNS in src/domain/checkin/list-tickets.repo.ts).
 */

/** A local time of day, `HH:MM` from 00:00 to 23:59: what the database's check on inventories.time and doors_time accepts. */
export const SHOW_TIME_PATTERN = /^([01][0-9]|2[0-3]):[0-5][0-9]$/

/** The longest text of each part of a venue. */
export const VENUE_LIMITS = { name: 200, address: 500, city: 100, state: 100 } as const

/** `HH:MM` times compare as text. */
export const doorsAfterShow = (time: string | null, doorsTime: string | null) => time !== null && doorsTime !== null && doorsTime > time

/**
 * An inventory's times as they will be once a change is saved (absent: kept, null: cleared): its
 * doors must not open after the show starts. Each may change alone, so the rule is checked
 * against the stored other; the error names `doors_time`, the field that a form shows it on.
 */
export function checkShowTimes(
  current: { time: string | null; doorsTime: string | null },
  change: { time?: string | null | undefined; doors_time?: string | null | undefined },
) {
  const time = change.time === undefined ? current.time : change.time
  const doorsTime = change.doors_time === undefined ? current.doorsTime : change.doors_time
  if (doorsAfterShow(time, doorsTime)) {
    throw new AppError('validation_error', { details: [{ path: 'doors_time', message: `must not be after time: doors at ${doorsTime}, show at ${time}` }] })
  }
  return { time, doorsTime }
}

/** Two venues say the same (a jsonb column keeps no key order). */
export const sameVenue = (a: EventVenue | null, b: EventVenue | null) =>
  a === b || (a !== null && b !== null && (['name', 'address', 'city', 'state', 'country'] as const).every((key) => a[key] === b[key]))
