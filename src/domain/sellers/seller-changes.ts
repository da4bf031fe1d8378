import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { listenersOf, type Database, type Db } from '../../platform/db/database.js'

/** The channel on which every process hears that a seller's credentials or settings changed. */
export const SELLER_CHANGES_CHANNEL = 'seller_changes'
/** The channel on which each process confirms it has acted on a change: `<change id> <listener id>`. */
export const SELLER_CHANGES_HEARD_CHANNEL = 'seller_changes_heard'

/** How long a change waits for every process to confirm it before it answers anyway. */
const CONFIRM_WITHIN_MS = 1000

/**
 * What one database handle of this process knows about seller changes: the changes it announced
 * that wait for confirmations (by change id: the listeners not heard from yet), and the caches
 * listening through it. Kept per handle, so two apps in one process share nothing.
 */
type Hub = {
  waiting: Map<string, { from: Set<string>; done: () => void }>
  listeners: Set<{ listener: SellerChangeListener; live: () => boolean }>
}
const hubs = new WeakMap<Db, Hub>()

function hubOf(db: Db): Hub {
  let hub = hubs.get(db)
  if (!hub) {
    hub = { waiting: new Map(), listeners: new Set() }
    hubs.set(db, hub)
  }
  return hub
}

function confirmed(hub: Hub, payload: string) {
  const [changeId = '', listenerId = ''] = payload.split(' ')
  const waiter = hub.waiting.get(changeId)
  if (!waiter) return
  waiter.from.delete(listenerId)
  if (waiter.from.size === 0) waiter.done()
}

/** Resolves once every listener in `from` has confirmed the change, or at the deadline. */
function awaitConfirmations(hub: Hub, changeId: string, from: readonly string[]): { confirmed: Promise<void>; cancel: () => void } {
  let done = () => {}
  const confirmed = new Promise<void>((resolve) => {
    if (from.length === 0 || ![...hub.listeners].some(({ live }) => live())) return resolve()
    const timer = setTimeout(() => done(), CONFIRM_WITHIN_MS)
    timer.unref()
    done = () => {
      clearTimeout(timer)
      hub.waiting.delete(changeId)
      resolve()
    }
    hub.waiting.set(changeId, { from: new Set(from), done })
  })
  return { confirmed, cancel: () => done() }
}

export type SellerChangeListener = {
  /** Forget what is cached about this seller. */
  changed(sellerId: string): void
  /** Notices may have been missed (the listening connection dropped): forget everything. */
  reset(): void
  /**
   * This process is announcing a change of the seller through the same database handle: its
   * notice arrives a few milliseconds after commit, so stop trusting the seller until then.
   */
  changing?(sellerId: string): void
  onError?: (error: unknown) => void
}

/**
 * Subscribes to seller changes for a cache of this process: `changed` runs for every change,
 * then this process confirms it on the database, and it hears the confirmations its own changes
 * wait for. Answers a function that stops listening.
 */
export async function listenForSellerChanges(database: Database, listener: SellerChangeListener): Promise<() => Promise<void>> {
  const stopChanges = await database.subscribe(SELLER_CHANGES_CHANNEL, {
    message: (payload) => {
      const [sellerId = '', changeId] = payload.split(' ')
      listener.changed(sellerId)
      const me = database.listenerId()
      if (changeId && me) database.notify(SELLER_CHANGES_HEARD_CHANNEL, `${changeId} ${me}`).catch((error) => listener.onError?.(error))
    },
    reset: listener.reset,
  })
  const hub = hubOf(database.db)
  const stopConfirmations = await database.subscribe(SELLER_CHANGES_HEARD_CHANNEL, { message: (payload) => confirmed(hub, payload), reset: () => {} })
  const entry = { listener, live: () => database.listening() }
  hub.listeners.add(entry)
  return async () => {
    hub.listeners.delete(entry)
    await stopChanges()
    await stopConfirmations()
  }
}

/** Announces that cached credentials, affiliates or settings of this seller are stale. */
export type AnnounceSellerChange = (sellerId: string) => Promise<void>

/**
 * Runs `work` in one transaction; `announce` tells every process, at commit and never before,
 * that a seller changed. The answer waits until every process that was listening has confirmed
 * it has forgotten the seller (at most a second, for a process that went away): a client's next
 * request is then refused by whichever replica it reaches.
 */
export async function changeSellers<T>(db: Db, work: (tx: Db, announce: AnnounceSellerChange) => Promise<T>): Promise<T> {
  const hub = hubOf(db)
  const changes: ReturnType<typeof awaitConfirmations>[] = []
  try {
    const result = await db.transaction(async (tx) => {
      let listeners: Promise<string[]> | undefined
      return work(tx, async (sellerId) => {
        listeners ??= listenersOf(tx)
        const changeId = randomBytes(8).toString('hex')
        changes.push(awaitConfirmations(hub, changeId, await listeners))
        await tx.execute(sql`select pg_notify(${SELLER_CHANGES_CHANNEL}, ${`${sellerId} ${changeId}`})`)
        for (const { listener } of hub.listeners) listener.changing?.(sellerId)
      })
    })
    await Promise.all(changes.map((change) => change.confirmed))
    return result
  } finally {
    for (const change of changes) change.cancel()
  }
}
