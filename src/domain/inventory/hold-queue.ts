/**
 * Turns for the holds of each inventory, in this process: at most `perInventory` holds of one
 * inventory are on their way to the database at once; the others wait here, in arrival order,
 * without a connection. The database serves the holds of one inventory one after another (they
 * lock its row): a process that sends more of them at once gains nothing, and fills its pool and
 * the database's lock queue with waiters that every commit must step over. A hold that gets its
 * turn after the inventory sold out is refused from memory (AvailabilityMemo), without a round
 * trip. Turns are taken in inventory id order, so that two holds of several inventories never
 * wait for each other.
 *
 * Groups (`inGroup`): new baskets (and checkouts) of the same inventories that arrive while their
 * turn is taken wait here together, and the next turn takes them all, up to `perGroup`, in one
 * transaction whose one statement decides each in arrival order by take_tickets itself
 * (sql/take_tickets_group.sql): a few transactions instead of one wait on the inventory's lock per
 * buyer, as a database turns many commits into one flush. Each process groups its own arrivals;
 * the database's lock orders the groups of several processes. A group is bounded in time, not only
 * in members: its statement takes no further member once it has run `groupBudgetMs` (a small part
 * of the statement timeout), and those it put off go in the group's next transaction, in the same
 * turn and order. Each member is answered as soon as its own outcome is known (`run`'s `answer`),
 * not when the whole group is done: a group that fails and sends its members alone answers the
 * first before the last has started.
 *
 * And at most `inFlight` holds of all inventories at once, taken last (after the inventories'
 * turns, in arrival order) and given back first, so that it cannot close a cycle. A sale spread
 * over several inventories otherwise sends `perInventory` holds of each at once: the database,
 * serving them side by side on few cores, spends more on each the more run together (a flash
 * sale over 5 inventories sold 86 tickets a second with 20 holds in flight, 140 with 5).
 */
export type HoldQueue = {
  /** Runs `work` once each of these inventories has a turn free for it, and a hold in flight is free. */
  inTurn<T>(inventoryIds: Iterable<string>, work: () => Promise<T>): Promise<T>
  /**
   * Joins `member` to the group of `key` that waits for its turn (of these inventories), or opens
   * one: when the turn comes, `run` takes every member that joined meanwhile (at most `perGroup`,
   * in arrival order) and answers each one's outcome by its place (`answer(n, outcome)`) as soon as
   * it knows it: that member's caller hears it at once, while the group goes on. A member still
   * unanswered when `run` ends gets its error (or, should it fail, its failure). Answers this
   * member's. Members of one key must want the same inventories (the key names them).
   */
  inGroup<M, R>(key: string, inventoryIds: Iterable<string>, member: M, run: GroupRun<M, R>): Promise<R>
  /** How long one group's statement may go on taking further members, in ms (take_tickets_group.sql). */
  readonly groupBudgetMs: number
  /** Remembers the inventories a basket held here, for its checkout's group (`heldBy`); a bounded memory. */
  held(basketId: string, inventoryIds: Iterable<string>): void
  /** The inventories `held` remembers of a basket, if it does. A hint for grouping only: the checkout reads the basket itself. */
  heldBy(basketId: string): string[] | undefined
  /** Holds on their way to the database and waiting their turn, in all, and the inventories that have any (the `hold_queue` metric). */
  state(): { running: number; waiting: number; inventories: number }
}

/** A member's outcome in a group: its answer, or its own error. */
export type Settled<R> = { value: R } | { error: unknown }

/** Decides a group's members, answering each by its place as soon as its outcome is known. */
export type GroupRun<M, R> = (members: M[], answer: (n: number, outcome: Settled<R>) => void) => Promise<void>

type Lane = { running: number; waiting: (() => void)[] }

/** Baskets whose inventories `held` remembers: about 10 MB at most. */
const HELD_BASKETS = 50_000

type Group = { members: { member: unknown; settle: (outcome: Settled<unknown>) => void }[] }

export function createHoldQueue(options: {
  perInventory: number
  inFlight?: number | undefined
  perGroup?: number | undefined
  /** Default 500 ms: a tenth of the default statement timeout. */
  groupBudgetMs?: number | undefined
}): HoldQueue {
  const lanes = new Map<string, Lane>()
  // The group of each key still waiting for its turn: new members join it.
  const forming = new Map<string, Group>()
  // Every group not yet given its turn, full ones included.
  const waitingGroups = new Set<Group>()
  const perGroup = options.perGroup ?? 32
  const holders = new Map<string, string[]>()
  const all: Lane = { running: 0, waiting: [] }
  const inFlight = options.inFlight ?? Number.POSITIVE_INFINITY

  const take = (lane: Lane, limit: number): Promise<void> | undefined => {
    if (lane.running < limit) {
      lane.running++
      return undefined
    }
    return new Promise<void>((resolve) => lane.waiting.push(resolve))
  }

  // The turn passes straight to the next waiter.
  const give = (lane: Lane) => {
    const next = lane.waiting.shift()
    if (next) next()
    else lane.running--
  }

  const enter = (id: string) => {
    let lane = lanes.get(id)
    if (!lane) {
      lane = { running: 0, waiting: [] }
      lanes.set(id, lane)
    }
    return take(lane, options.perInventory)
  }

  const leave = (id: string) => {
    const lane = lanes.get(id)!
    give(lane)
    // A lane nobody uses is forgotten.
    if (lane.running === 0) lanes.delete(id)
  }

  const queue: HoldQueue = {
    async inTurn(inventoryIds, work) {
      const ids = [...new Set(inventoryIds)].sort()
      const entered: string[] = []
      let flying = false
      try {
        for (const id of ids) {
          await enter(id)
          entered.push(id)
        }
        await take(all, inFlight)
        flying = true
        return await work()
      } finally {
        if (flying) give(all)
        for (const id of entered) leave(id)
      }
    },
    inGroup<M, R>(key: string, inventoryIds: Iterable<string>, member: M, run: GroupRun<M, R>) {
      return new Promise<R>((resolve, reject) => {
        const settle = (outcome: Settled<unknown>) => ('error' in outcome ? reject(outcome.error) : resolve(outcome.value as R))
        const joined = forming.get(key)
        if (joined) {
          joined.members.push({ member, settle })
          if (joined.members.length >= perGroup) forming.delete(key)
          return
        }
        const group: Group = { members: [{ member, settle }] }
        if (perGroup > 1) forming.set(key, group)
        waitingGroups.add(group)
        queue
          .inTurn(inventoryIds, async () => {
            // Its turn: no one joins any more.
            if (forming.get(key) === group) forming.delete(key)
            waitingGroups.delete(group)
            const answered = new Set<number>()
            await run(
              group.members.map((one) => one.member as M),
              (n, outcome) => {
                answered.add(n)
                group.members[n]?.settle(outcome)
              },
            )
            if (answered.size < group.members.length) {
              const error = new Error('a group left a member unanswered')
              for (const [n, one] of group.members.entries()) if (!answered.has(n)) one.settle({ error })
            }
          })
          .catch((error: unknown) => {
            waitingGroups.delete(group)
            // Those answered already keep their answer (a promise settles once).
            for (const one of group.members) one.settle({ error })
          })
      })
    },
    held(basketId, inventoryIds) {
      holders.delete(basketId)
      holders.set(basketId, [...inventoryIds])
      // The oldest goes first (a Map keeps insertion order).
      if (holders.size > HELD_BASKETS) holders.delete(holders.keys().next().value!)
    },
    heldBy: (basketId) => holders.get(basketId),
    groupBudgetMs: options.groupBudgetMs ?? 500,
    state: () => {
      let waiting = all.waiting.length
      for (const lane of lanes.values()) waiting += lane.waiting.length
      // A group waits as one in its lanes: its other members wait with it.
      for (const group of waitingGroups) waiting += group.members.length - 1
      return { running: all.running, waiting, inventories: lanes.size }
    },
  }
  return queue
}
