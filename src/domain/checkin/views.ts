import type { EventVenue } from '../catalog/events.table.js'
import type { AnswerReason, checkins, ScanReason, ScanType } from './checkin.table.js'
import type { DeviceRow } from './devices.repo.js'
import type { ListRow } from './lists.repo.js'
import type { ScanTicketStatus } from '../orders/order-view.js'
import type { orderItems } from '../orders/orders.table.js'
import type { ErrorDetail } from '../../platform/errors.js'

/** A seat as sold (docs/seating.md Seat): the order item's snapshot of it. */
export type SoldSeat = NonNullable<(typeof orderItems.$inferSelect)['seats']>[number]

/** A scanner device as the API answers it (docs/door.md). */
export type DeviceView = {
  id: string
  seller_id: string
  name: string
  event_ids: string[] | null
  paired_at: string | null
  last_seen_at: string | null
  revoked_at: string | null
  created_at: string
}

const instant = (value: Date | null) => value?.toISOString() ?? null

export const toDeviceView = (row: DeviceRow): DeviceView => ({
  id: row.id,
  seller_id: row.sellerId,
  name: row.name,
  event_ids: row.eventIds ?? null,
  paired_at: instant(row.pairedAt),
  last_seen_at: instant(row.lastSeenAt),
  revoked_at: instant(row.revokedAt),
  created_at: row.createdAt.toISOString(),
})

/** A check-in list as the API answers it. */
export type CheckinListView = {
  id: string
  event_id: string
  name: string
  inventory_ids: string[] | null
  variants: string[] | null
  allow_multiple_entries: boolean
  allow_entry_after_exit: boolean
  created_at: string
  updated_at: string
}

export const toCheckinListView = (row: ListRow): CheckinListView => ({
  id: row.id,
  event_id: row.eventId,
  name: row.name,
  inventory_ids: row.inventoryIds ?? null,
  variants: row.variants ?? null,
  allow_multiple_entries: row.allowMultipleEntries,
  allow_entry_after_exit: row.allowEntryAfterExit,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
})

/** One scan as the API answers it. */
export type CheckinView = {
  id: string
  list_id: string | null
  device_id: string
  identifier: string
  type: ScanType
  successful: boolean
  reason: ScanReason | null
  forced: boolean
  nonce: string | null
  scanned_at: string
  annulled_at: string | null
  created_at: string
}

/** A scan as recorded (or about to be): the columns its view shows. */
export type CheckinRowLike = Omit<typeof checkins.$inferSelect, 'sellerId' | 'ticketId' | 'answer' | 'requestSha256'>

export const toCheckinView = (row: CheckinRowLike): CheckinView => ({
  id: row.id,
  list_id: row.listId,
  device_id: row.deviceId,
  identifier: row.identifier,
  type: row.type,
  successful: row.successful,
  reason: row.reason,
  forced: row.forced,
  nonce: row.nonce,
  scanned_at: row.scannedAt.toISOString(),
  annulled_at: instant(row.annulledAt),
  created_at: row.createdAt.toISOString(),
})

/** A ticket as a gate sees it; `checked_in`, `inside` and `last_checkin_at` are of one list. */
export type ScanTicketView = {
  identifier: string
  order_id: string
  event_id: string
  inventory_id: string
  date: string
  /** Its show's start and doors on `date` (`HH:MM`, the seller's clock; null: not said). */
  time: string | null
  doors_time: string | null
  /** Where its event takes place, as the event says when the ticket last changed for the feed (a venue's edit alone does not resend tickets). */
  venue: EventVenue | null
  /** Its window of entry (docs/door.md, docs/selling.md): an entry outside it is `invalid_time`. */
  entry_opens_at: string
  entry_closes_at: string
  name: string
  variant: string | null
  /** Reserved seating: the seat it sits in (null: unseated). */
  seat: SoldSeat | null
  /** `pending` and `expired` (its order unpaid) are refused at the door as `unpaid`; `revoked` (given away) as `invalid`. */
  status: ScanTicketStatus
  /** Only a code signed with this version passes (docs/transfers.md). */
  code_version: number
  holder: { name: string } | null
  checked_in: boolean
  inside: boolean
  last_checkin_at: string | null
  attention: boolean
}

/** The answer to one scan. */
export type RedeemAnswer = {
  status: 'ok' | 'refused'
  reason: AnswerReason | null
  /** The ticket's inventory or variant asks the gate to check something (e.g. proof of a half-price right). */
  attention: boolean
  ticket: ScanTicketView | null
  list_id: string | null
  checkin: CheckinView | null
  /** `invalid_scan` only: what is wrong with the scan. */
  details?: ErrorDetail[]
}
