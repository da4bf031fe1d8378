/**
 * Turns for the holds of each inventory, in this process: at most `perInventory` holds of one
 * inventory are on their way to the database at once; the others wait here, in arrival order,
 * without a connection. The database serves the holds of one inventory one after another (they
 * lock its row): a process that sends more of them at once gains nothing, and fills its pool and
 * the database's lock queue with waiters that every commit must step over. A hold that gets its
 * turn after the inventory sold out is refused from memory (AvailabilityMemo), without a round
 * trip. Turns are taken in inventory id order, so that two holds of several inventories never
 * wait for each other.
 */
export type HoldQueue = {
  /** Runs `work` once each of these inventories has a turn free for it. */
  inTurn<T>(inventoryIds: Iterable<string>, work: () => Promise<T>): Promise<T>
  /** Holds running and waiting in all, and the inventories that have any (the `hold_queue` metric). */
  state(): { running: number; waiting: number; inventories: number }
}

type Lane = { running: number; waiting: (() => void)[] }

export function createHoldQueue(options: { perInventory: number }): HoldQueue {
  const lanes = new Map<string, Lane>()

  const enter = (id: string): Promise<void> | undefined => {
    let lane = lanes.get(id)
    if (!lane) {
      lane = { running: 0, waiting: [] }
      lanes.set(id, lane)
    }
    if (lane.running < options.perInventory) {
      lane.running++
      return undefined
    }
    const queued = lane
    return new Promise<void>((resolve) => queued.waiting.push(resolve))
  }

  const leave = (id: string) => {
    const lane = lanes.get(id)!
    const next = lane.waiting.shift()
    // The turn passes straight to the next waiter; a lane nobody uses is forgotten.
    if (next) next()
    else if (--lane.running === 0) lanes.delete(id)
  }

  return {
    async inTurn(inventoryIds, work) {
      const ids = [...new Set(inventoryIds)].sort()
      const entered: string[] = []
      try {
        for (const id of ids) {
          await enter(id)
          entered.push(id)
        }
        return await work()
      } finally {
        for (const id of entered) leave(id)
      }
    },
    state: () => {
      let running = 0
      let waiting = 0
      for (const lane of lanes.values()) {
        running += lane.running
        waiting += lane.waiting.length
      }
      return { running, waiting, inventories: lanes.size }
    },
  }
}
