import type { WaitingEntryStatus } from './waiting-list.table.js'
import type { PlacedEntry } from './waiting-list.repo.js'

/** A waiting-list entry as the API answers it (docs/waiting-list.md). */
export type WaitingEntryView = {
  id: string
  inventory_id: string
  variant: string | null
  quantity: number
  email: string
  name: string | null
  priority: number
  status: WaitingEntryStatus
  position: number | null
  offer_expires_at: string | null
  basket_id: string | null
  created_at: string
}

const iso = (d: Date | null) => (d ? d.toISOString() : null)

export function toWaitingEntryView(entry: PlacedEntry): WaitingEntryView {
  return {
    id: entry.id,
    inventory_id: entry.inventoryId,
    variant: entry.variant,
    quantity: entry.quantity,
    email: entry.email,
    name: entry.name,
    priority: entry.priority,
    status: entry.status,
    position: entry.position,
    offer_expires_at: iso(entry.offerExpiresAt),
    // The basket once accepted: until then it is the offer's hold, not yet the buyer's.
    basket_id: entry.status === 'accepted' ? entry.basketId : null,
    created_at: entry.createdAt.toISOString(),
  }
}

/** A webhook event's `data`: the entry without its email (docs/waiting-list.md), which stays with the seller's own API. */
export function entryEventData(entry: PlacedEntry): Omit<WaitingEntryView, 'email'> {
  const { email: _email, ...data } = toWaitingEntryView(entry)
  return data
}
