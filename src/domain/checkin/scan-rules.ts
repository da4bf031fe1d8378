import type { ScanReason, ScanType } from './checkin.table.js'
import type { ScanState } from './checkins.repo.js'

export type ScanFacts = {
  type: ScanType
  scannedAt: Date
  ticket: { voided: boolean; opensAt: Date; closesAt: Date }
  list: { allowMultipleEntries: boolean; allowEntryAfterExit: boolean }
  /** The ticket's scans on the list that count so far. */
  state: ScanState
}

/**
 * Whether a ticket on its list may pass (null) or why not (API.md 7.5). Exits are always
 * allowed for valid tickets. An entry must fall within the ticket's window (its date, until
 * 06:00 of the next day in the seller's time zone), and is allowed on its first scan on the
 * list; again only with `allow_multiple_entries`, or after an exit with `allow_entry_after_exit`.
 */
export function judgeScan({ type, scannedAt, ticket, list, state }: ScanFacts): ScanReason | null {
  if (ticket.voided) return 'voided'
  if (type === 'exit') return null
  if (scannedAt < ticket.opensAt || scannedAt >= ticket.closesAt) return 'invalid_time'
  if (!state.entered || list.allowMultipleEntries) return null
  if (list.allowEntryAfterExit && state.lastType === 'exit') return null
  return 'already_redeemed'
}

/** The reasons a forced (offline) scan may override: not a code that names no ticket, nor one that fits several lists. */
export const overridable = (reason: ScanReason) => reason !== 'invalid' && reason !== 'ambiguous'

/** Whether a list covers a ticket's inventory and variant. */
export const listCovers = (
  list: { eventId: string; inventoryIds: string[] | null; variants: string[] | null },
  ticket: { event_id: string; inventory_id: string; variant: string | null },
) =>
  list.eventId === ticket.event_id &&
  (list.inventoryIds === null || list.inventoryIds.includes(ticket.inventory_id)) &&
  (list.variants === null || (ticket.variant !== null && list.variants.includes(ticket.variant)))
