import type { Database, Db } from '../../platform/db/database.js'
import { EpochCache } from '../../platform/cache/epoch-cache.js'
import { localNotices } from '../../platform/db/local-notices.js'
import type { InventoryStanding } from './inventory.repo.js'

/** The database channel of announce_tickets_freed (sql/announce_tickets_freed.sql): an inventory id, when more of its tickets may be available. */
export const TICKETS_FREED_CHANNEL = 'tickets_freed'

/**
 * After the commit of a change that may have made tickets of these inventories available
 * (`freeingTickets` calls it): the memories on this database handle forget them at once, since
 * the database's notice reaches even this process only a few milliseconds later, and a buyer who
 * just removed an item must find it available on the very next call.
 */
export const announceTicketsFreedHere = (db: Db, inventoryIds: readonly string[] | '*') => {
  localNotices(db).emit(TICKETS_FREED_CHANNEL, inventoryIds)
}

export type AvailabilityMemoOptions = {
  database: Pick<Database, 'db' | 'subscribe' | 'listening'>
  /** How long a reading is trusted at most, even with no hold running out (default 2 s; 0: never kept). */
  maxAgeMs?: number
  maxEntries?: number
}

/** What the database said of an inventory, with no quantity asked: its standing and the tickets it sold still. */
export type RememberedStanding = Omit<InventoryStanding, 'fits'>

/** A reading of one inventory, by the seller it belongs to (ids are only ever answered to their seller). */
type Entry = { sellerId: string; standing: RememberedStanding; until: number }

export type AvailabilityMemo = ReturnType<typeof createAvailabilityMemo>

/**
 * The last reading of an inventory's availability (the precheck of a new basket, or what the
 * hold of one found under the locks), kept so that a rush of buyers on a sold-out inventory is
 * refused without a database round trip each. A reading is only ever used where a fresh unlocked
 * reading would be, to refuse early: holding and selling are still decided under the locks, so
 * it can never cause an oversale. A wrong refusal is what it must avoid, hence a reading is
 * trusted only
 *   - until the first hold it counted runs out (then availability grows by itself),
 *   - until a change that frees tickets is announced (announce_tickets_freed announces every one at
 *     commit, to every process; this process's own are announced here right after commit),
 *   - while the listening connection is up (notices may be lost otherwise),
 *   - at most `maxAgeMs`,
 * and a reading that started before a notice about its inventory arrived is not kept. What another process frees
 * is seen within the few milliseconds its notice takes, as if that reading had started a moment
 * earlier.
 */
export function createAvailabilityMemo(options: AvailabilityMemoOptions) {
  const { database } = options
  const maxAgeMs = options.maxAgeMs ?? 2000
  // Each inventory is its own group: a notice about one leaves the readings of others alone.
  const entries = new EpochCache<Entry>({ maxEntries: options.maxEntries ?? 10_000, trusted: () => database.listening() })
  let unsubscribe: (() => Promise<void>) | undefined

  const forget = (inventoryIds: readonly string[] | '*') => {
    if (inventoryIds === '*') entries.clear()
    else for (const id of inventoryIds) entries.forget(id)
  }
  const forgetAll = () => entries.clear()
  const forgetFreedHere = (inventoryIds: unknown) => forget(inventoryIds as readonly string[] | '*')

  return {
    async start() {
      localNotices(database.db).on(TICKETS_FREED_CHANNEL, forgetFreedHere)
      unsubscribe = await database.subscribe(TICKETS_FREED_CHANNEL, { message: (inventoryId) => entries.forget(inventoryId), reset: forgetAll })
    },

    async stop() {
      localNotices(database.db).off(TICKETS_FREED_CHANNEL, forgetFreedHere)
      await unsubscribe?.()
      forgetAll()
    },

    /** Where a reading starts: pass it to `remember`. */
    epoch: () => entries.since(),

    /** How the seller's inventories stood, for every one of these ids, when all are remembered and trusted; else undefined. */
    recall(sellerId: string, inventoryIds: readonly string[]): RememberedStanding[] | undefined {
      const now = Date.now()
      const standings: RememberedStanding[] = []
      for (const id of inventoryIds) {
        const entry = entries.get(id, now)
        if (!entry || entry.sellerId !== sellerId) return undefined
        standings.push(entry.standing)
      }
      return standings
    },

    /**
     * Keeps how a seller's inventories stood, as read from `startEpoch` on for a caller who may
     * see all of the seller's events, each unless a notice about it arrived meanwhile.
     */
    remember(sellerId: string, readings: readonly RememberedStanding[], startEpoch: number) {
      if (maxAgeMs <= 0) return
      const now = Date.now()
      for (const reading of readings) {
        const standing = {
          id: reading.id,
          date: reading.date,
          standing: reading.standing,
          ticketsLeft: reading.ticketsLeft,
          firstReleaseMs: reading.firstReleaseMs,
        }
        entries.set(reading.id, { sellerId, standing, until: now + Math.min(maxAgeMs, reading.firstReleaseMs ?? Infinity) }, startEpoch)
      }
    },
  }
}
