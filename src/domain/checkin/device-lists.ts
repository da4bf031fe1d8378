import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { deviceListRows, eventSpans, type ListRow } from './lists.repo.js'
import type { DeviceContext } from './scan-tickets.js'
import { toCheckinListView, type CheckinListView } from './views.js'
import type { EventVenue } from '../catalog/events.table.js'

/** A list the device may scan (of its seller, on its events), or 404. */
export async function deviceList(db: Db, device: DeviceContext, listId: string): Promise<ListRow> {
  const [list] = await deviceListRows(db, device.sellerId, device.eventIds, [listId])
  if (!list) throw new AppError('not_found')
  return list
}

export type DeviceListView = CheckinListView & { event: { title: string; first_date: string | null; last_date: string | null; venue: EventVenue | null } }

/**
 * The lists of the device's events, each with its event's title, the span of its dates and its venue, so that gates can tell "Main
 * entrance" from "Main entrance" (and show where). A gate reads them again at every sync: a venue changed shows there.
 */
export async function listDeviceLists(db: Db, device: DeviceContext): Promise<DeviceListView[]> {
  const lists = await deviceListRows(db, device.sellerId, device.eventIds)
  if (lists.length === 0) return []
  const eventIds = [...new Set(lists.map((list) => list.eventId))]
  const events = new Map((await eventSpans(db, device.sellerId, eventIds)).map((row) => [row.id, row]))
  return lists.map((list) => {
    const event = events.get(list.eventId)
    return {
      ...toCheckinListView(list),
      event: { title: event?.title ?? '', first_date: event?.first_date ?? null, last_date: event?.last_date ?? null, venue: event?.venue ?? null },
    }
  })
}
