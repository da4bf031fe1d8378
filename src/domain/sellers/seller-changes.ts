import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { listenersOf, type Database, type Db } from '../../platform/db/database.js'
import { preparedOn } from '../../platform/db/prepared.js'

/** The channel on which every process hears that a seller's credentials or settings changed: `<seller id> <change id>`. */
export const SELLER_CHANGES_CHANNEL = 'seller_changes'
/**
 * The channel on which every process hears that a customer's sessions ended: `<customer id> <change id>`.
 * Its own, so that a logout costs the other processes that customer's sessions only, never a
 * whole seller's keys, affiliates and catalogue.
 */
export const CUSTOMER_SESSIONS_ENDED_CHANNEL = 'customer_sessions_ended'
/** The channel on which each process confirms it has acted on a change of either: `<change id> <listener id>`. */
export const SELLER_CHANGES_HEARD_CHANNEL = 'seller_changes_heard'

/** How long a change waits for every process to confirm it before it answers anyway. */
const CONFIRM_WITHIN_MS = 1000

/**
 * What one database handle of this process knows about seller changes: the changes it announced
 * that wait for confirmations (by change id: the listeners not heard from yet), and the caches
 * listening through it. Kept on the handle, so two apps in one process share nothing.
 */
type Hub = {
  waiting: Map<string, { from: Set<string>; done: () => void }>
  listeners: Set<{ listener: SellerChangeListener; live: () => boolean }>
}
const HUB = Symbol('seller changes')
const hubOf = (db: Db): Hub => preparedOn(db, HUB, () => ({ waiting: new Map(), listeners: new Set() }))

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
  /** Forget the live sessions of this customer (`CUSTOMER_SESSIONS_ENDED_CHANNEL`). */
  sessionsEnded?(customerId: string): void
  /** Like `changing`, for the sessions of a customer this process is ending. */
  sessionsEnding?(customerId: string): void
  onError?: (error: unknown) => void
}

/**
 * Subscribes to seller changes (and, with `sessionsEnded`, to the end of customers' sessions)
 * for a cache of this process: the listener acts on every change, then this process confirms it
 * on the database, and it hears the confirmations its own changes wait for. Answers a function
 * that stops listening.
 */
export async function listenForSellerChanges(database: Database, listener: SellerChangeListener): Promise<() => Promise<void>> {
  // Acts on a notice `<subject> <change id>`, then confirms it.
  const hearing = (act: (subject: string) => void) => (payload: string) => {
    const [subject = '', changeId] = payload.split(' ')
    act(subject)
    const me = database.listenerId()
    if (changeId && me) database.notify(SELLER_CHANGES_HEARD_CHANNEL, `${changeId} ${me}`).catch((error) => listener.onError?.(error))
  }
  const stops = [await database.subscribe(SELLER_CHANGES_CHANNEL, { message: hearing((sellerId) => listener.changed(sellerId)), reset: listener.reset })]
  if (listener.sessionsEnded) {
    const message = hearing((customerId) => listener.sessionsEnded?.(customerId))
    stops.push(await database.subscribe(CUSTOMER_SESSIONS_ENDED_CHANNEL, { message, reset: () => {} }))
  }
  const hub = hubOf(database.db)
  stops.push(await database.subscribe(SELLER_CHANGES_HEARD_CHANNEL, { message: (payload) => confirmed(hub, payload), reset: () => {} }))
  const entry = { listener, live: () => database.listening() }
  hub.listeners.add(entry)
  return async () => {
    hub.listeners.delete(entry)
    for (const stop of stops) await stop()
  }
}

/** Announces that cached credentials, affiliates or settings of this seller are stale. */
export type AnnounceSellerChange = (sellerId: string) => Promise<void>
/** Announces that every session of this customer ended. */
export type AnnounceSessionsEnded = (customerId: string) => Promise<void>

/**
 * Runs `work` in one transaction; `announce` tells every process, at commit and never before,
 * that a seller changed. The answer waits until every process that was listening has confirmed
 * it has forgotten the seller (at most a second, for a process that went away): a client's next
 * request is then refused by whichever replica it reaches.
 */
export const changeSellers = <T>(db: Db, work: (tx: Db, announce: AnnounceSellerChange) => Promise<T>): Promise<T> =>
  announcing(db, SELLER_CHANGES_CHANNEL, (listener, sellerId) => listener.changing?.(sellerId), work)

/**
 * Like `changeSellers`, for the end of customers' sessions: `announce` tells every process, at
 * commit, to forget the live sessions of that customer, and the answer waits for them.
 */
export const endingCustomerSessions = <T>(db: Db, work: (tx: Db, announce: AnnounceSessionsEnded) => Promise<T>): Promise<T> =>
  announcing(db, CUSTOMER_SESSIONS_ENDED_CHANNEL, (listener, customerId) => listener.sessionsEnding?.(customerId), work)

async function announcing<T>(
  db: Db,
  channel: string,
  here: (listener: SellerChangeListener, subject: string) => void,
  work: (tx: Db, announce: (subject: string) => Promise<void>) => Promise<T>,
): Promise<T> {
  const hub = hubOf(db)
  const changes: ReturnType<typeof awaitConfirmations>[] = []
  try {
    const result = await db.transaction(async (tx) => {
      let listeners: Promise<string[]> | undefined
      return work(tx, async (subject) => {
        listeners ??= listenersOf(tx)
        const changeId = randomBytes(8).toString('hex')
        changes.push(awaitConfirmations(hub, changeId, await listeners))
        await tx.execute(sql`select pg_notify(${channel}, ${`${subject} ${changeId}`})`)
        for (const { listener } of hub.listeners) here(listener, subject)
      })
    })
    await Promise.all(changes.map((change) => change.confirmed))
    return result
  } finally {
    for (const change of changes) change.cancel()
  }
}
