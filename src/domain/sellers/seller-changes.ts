import { randomBytes } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { sql } from 'drizzle-orm'
import { listenersOf, type Database, type Db } from '../../platform/db/database.js'

/** The channel on which every process hears that a seller's credentials or settings changed. */
export const SELLER_CHANGES_CHANNEL = 'seller_changes'
/** The channel on which each process confirms it has acted on a change: `<change id> <listener id>`. */
export const SELLER_CHANGES_HEARD_CHANNEL = 'seller_changes_heard'

/**
 * Changes announced by this process. The database's notice reaches even this process a few
 * milliseconds after commit, so caches here stop trusting the seller at once, until it arrives.
 */
export const localSellerChanges = new EventEmitter<{ change: [sellerId: string] }>()

/** How long a change waits for every process to confirm it before it answers anyway. */
const CONFIRM_WITHIN_MS = 1000

/** Changes of this process waiting for confirmations, by change id: the listeners not heard from yet. */
const waiting = new Map<string, { from: Set<string>; done: () => void }>()
/** Whether each subscriber of this process can hear confirmations right now. */
const hearing = new Set<() => boolean>()

function confirmed(payload: string) {
  const [changeId = '', listenerId = ''] = payload.split(' ')
  const waiter = waiting.get(changeId)
  if (!waiter) return
  waiter.from.delete(listenerId)
  if (waiter.from.size === 0) waiter.done()
}

/** Resolves once every listener in `from` has confirmed the change, or at the deadline. */
function awaitConfirmations(changeId: string, from: readonly string[]): { confirmed: Promise<void>; cancel: () => void } {
  let done = () => {}
  const confirmed = new Promise<void>((resolve) => {
    if (from.length === 0 || ![...hearing].some((live) => live())) return resolve()
    const timer = setTimeout(() => done(), CONFIRM_WITHIN_MS)
    timer.unref()
    done = () => {
      clearTimeout(timer)
      waiting.delete(changeId)
      resolve()
    }
    waiting.set(changeId, { from: new Set(from), done })
  })
  return { confirmed, cancel: () => done() }
}

export type SellerChangeListener = {
  /** Forget what is cached about this seller. */
  changed(sellerId: string): void
  /** Notices may have been missed (the listening connection dropped): forget everything. */
  reset(): void
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
  const stopConfirmations = await database.subscribe(SELLER_CHANGES_HEARD_CHANNEL, { message: confirmed, reset: () => {} })
  const live = () => database.listening()
  hearing.add(live)
  return async () => {
    hearing.delete(live)
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
  const changes: ReturnType<typeof awaitConfirmations>[] = []
  try {
    const result = await db.transaction(async (tx) => {
      let listeners: Promise<string[]> | undefined
      return work(tx, async (sellerId) => {
        listeners ??= listenersOf(tx)
        const changeId = randomBytes(8).toString('hex')
        changes.push(awaitConfirmations(changeId, await listeners))
        await tx.execute(sql`select pg_notify(${SELLER_CHANGES_CHANNEL}, ${`${sellerId} ${changeId}`})`)
        localSellerChanges.emit('change', sellerId)
      })
    })
    await Promise.all(changes.map((change) => change.confirmed))
    return result
  } finally {
    for (const change of changes) change.cancel()
  }
}
