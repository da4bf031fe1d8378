/** available = capacity − sold − held, never below 0 (API.md 3.3). */
export const availableOf = (inventory: { capacity: number; sold: number }, held: number) => Math.max(0, inventory.capacity - inventory.sold - held)

/** Which events a caller may see and sell: null = every event of the seller (no affiliate, or an unrestricted one). */
export type EventScope = readonly string[] | null

export const inScope = (scope: EventScope, eventId: string) => scope === null || scope.includes(eventId)
