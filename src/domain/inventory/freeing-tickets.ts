import type { Db } from '../../platform/db/database.js'
import { announceTicketsFreedHere } from './availability-memo.js'
import { lockInventories, unsell } from './inventory.repo.js'

/** What a transaction may do that puts tickets back on sale. */
export type TicketsFreed = {
  /**
   * Takes sold tickets back (a cancellation): locks the seller's inventories in id order, the
   * order every hold and sale locks them in, and lowers `sold` by each quantity.
   */
  release(sellerId: string, quantities: ReadonlyMap<string, number>): Promise<void>
  /** Notes inventories this transaction frees tickets of otherwise (a basket shortened, a capacity raised; '*': any). */
  freed(inventoryIds: readonly string[] | '*'): void
}

/**
 * Runs `work` in one transaction in which tickets may be put back on sale, and announces them
 * once it has committed: this process's memory of sold-out inventories forgets them at once, so
 * that the very next call of the buyer who freed them finds them. Other processes hear it from
 * the database at commit (the `tickets_freed` notices of sql/announce_tickets_freed.sql). A rolled-back change
 * announces nothing.
 */
export async function freeingTickets<T>(db: Db, work: (tx: Db, tickets: TicketsFreed) => Promise<T>): Promise<T> {
  const freed = new Set<string>()
  let all = false
  const note = (inventoryIds: readonly string[] | '*') => {
    if (inventoryIds === '*') all = true
    else for (const id of inventoryIds) freed.add(id)
  }
  const result = await db.transaction((tx) =>
    work(tx, {
      async release(sellerId, quantities) {
        const ids = [...quantities.keys()]
        await lockInventories(tx, sellerId, ids)
        await unsell(tx, quantities)
        note(ids)
      },
      freed: note,
    }),
  )
  if (all) announceTicketsFreedHere(db, '*')
  else if (freed.size > 0) announceTicketsFreedHere(db, [...freed])
  return result
}
