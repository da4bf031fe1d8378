import { and, eq, getTableColumns, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { leaseDue } from '../../platform/outbox/lease.js'
import { waitingEntries, waitingListTurns, type WaitingEntryStatus } from './waiting-list.table.js'

// The SQL of waiting lists: entries, their place in the queue, and the turns that serve them.
// Who gets tickets, and when, is decided by sql/serve_waiting_list.sql alone.

export type WaitingEntryRow = typeof waitingEntries.$inferSelect

/** An entry with its place in its queue: 1-based while it waits, else null. */
export type PlacedEntry = WaitingEntryRow & { position: number | null }

/** Serving order: priority (higher first), then who joined first. */
const servingOrder = sql`${waitingEntries.priority} desc, ${waitingEntries.createdAt}, ${waitingEntries.id}`

/** 1 + the entries waiting before `e` in its queue (a correlated count on the queue's index), null unless `e` waits. */
const positionOf = (e: SQL) => sql<number | null>`case when ${e}.status = 'waiting' then (
  select count(*)::int + 1 from waiting_entries x
   where x.inventory_id = ${e}.inventory_id and x.status = 'waiting'
     and (x.priority > ${e}.priority or (x.priority = ${e}.priority and (x.created_at, x.id) < (${e}.created_at, ${e}.id)))) end`

const entryColumns = () => getTableColumns(waitingEntries)

const placed = { ...entryColumns(), position: positionOf(sql.raw('"waiting_entries"')) }

const toPlaced = (row: WaitingEntryRow & { position: number | null }): PlacedEntry => ({
  ...row,
  position: row.position === null ? null : Number(row.position),
})

/** Of this seller only (null: any seller's, for the back office). */
const ofSeller = (sellerId: string | null) => (sellerId === null ? undefined : eq(waitingEntries.sellerId, sellerId))

/** A seller's entry (null: any seller's), with its position; undefined for another seller's or none. */
export async function findEntry(db: Db, sellerId: string | null, id: string): Promise<PlacedEntry | undefined> {
  const [row] = await db
    .select(placed)
    .from(waitingEntries)
    .where(and(eq(waitingEntries.id, id), ofSeller(sellerId)))
  return row && toPlaced(row)
}

/** Entries by id (any seller: the caller got the ids from its own work), with their positions. */
export async function entriesByIds(db: Db, ids: readonly string[]): Promise<PlacedEntry[]> {
  if (ids.length === 0) return []
  const rows = await db
    .select(placed)
    .from(waitingEntries)
    .where(sql`${waitingEntries.id} = any(${sql.param([...ids])}::uuid[])`)
  return rows.map(toPlaced)
}

/** Locks a seller's entry (null: any seller's) to change it; undefined for another seller's or none. */
export async function lockEntry(db: Db, sellerId: string | null, id: string): Promise<WaitingEntryRow | undefined> {
  const [row] = await db
    .select()
    .from(waitingEntries)
    .where(and(eq(waitingEntries.id, id), ofSeller(sellerId)))
    .for('update')
  return row
}

/** Locks the seller's entry whose offer token hashes to `tokenHash`; another seller's token finds none. */
export async function lockEntryByToken(db: Db, sellerId: string, tokenHash: string): Promise<(WaitingEntryRow & { lapsed: boolean }) | undefined> {
  const [row] = await db
    .select({ ...entryColumns(), lapsed: sql<boolean>`offer_lapsed(${waitingEntries.offerExpiresAt})` })
    .from(waitingEntries)
    .where(and(eq(waitingEntries.tokenHash, tokenHash), eq(waitingEntries.sellerId, sellerId)))
    .for('update')
  return row
}

export type NewEntry = Pick<WaitingEntryRow, 'sellerId' | 'affiliateId' | 'inventoryId' | 'variant' | 'quantity' | 'email' | 'name' | 'customerId'>

/** Adds an entry at the back of its queue; undefined when the email already waits there (the unique index). */
export async function insertEntry(db: Db, entry: NewEntry): Promise<WaitingEntryRow | undefined> {
  const [row] = await db.insert(waitingEntries).values(entry).onConflictDoNothing().returning()
  return row
}

export async function setEntry(db: Db, id: string, changes: Partial<Pick<WaitingEntryRow, 'status' | 'priority' | 'basketId'>>): Promise<void> {
  await db
    .update(waitingEntries)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(waitingEntries.id, id))
}

/** An inventory's entries in serving order (optionally of one status), a page of them. */
export async function listQueue(db: Db, inventoryId: string, status: WaitingEntryStatus | undefined, paging: Paging): Promise<Page<PlacedEntry>> {
  const where = and(eq(waitingEntries.inventoryId, inventoryId), status ? eq(waitingEntries.status, status) : undefined)
  const [rows, [count]] = await Promise.all([
    db.select(placed).from(waitingEntries).where(where).orderBy(servingOrder).limit(paging.limit).offset(offsetOf(paging)),
    db.select({ n: sql<number>`count(*)::int` }).from(waitingEntries).where(where),
  ])
  return { rows: rows.map(toPlaced), total: Number(count?.n ?? 0) }
}

/** Ends an offer's hold: its basket expires (the database then nudges the queue: sql/announce_tickets_freed.sql). */
export async function endOfferHold(db: Db, basketId: string | null): Promise<void> {
  if (basketId) await db.execute(sql`select end_offer_hold(${basketId}::uuid)`)
}

/**
 * Takes the inventory's locks for this transaction, those of every hold, sale and serving
 * (sql/waiting_list_lock.sql): what the transaction reads next counts everything committed before.
 */
export async function lockQueue(db: Db, inventoryId: string): Promise<void> {
  await db.execute(sql`select waiting_list_lock(${inventoryId}::uuid)`)
}

/** Queues a turn for the inventory if anyone waits there (sql/waiting_list_nudge.sql), and tells memories it may sell again. */
export async function nudgeQueue(db: Db, inventoryId: string): Promise<void> {
  await db.execute(sql`select waiting_list_nudge(array[${inventoryId}]::uuid[]), pg_notify('tickets_freed', ${inventoryId})`)
}

export type ServeOutcome = 'expired' | 'offered' | 'short'

/**
 * One call of sql/serve_waiting_list.sql: the entries it changed, and what became of each. With
 * `entryId`, offers that entry only, out of turn.
 */
export async function serveQueue(
  db: Db,
  inventoryId: string,
  limit: number,
  entryId: string | null = null,
): Promise<{ entryId: string; outcome: ServeOutcome }[]> {
  const { rows } = await db.execute<{ entry_id: string; outcome: ServeOutcome }>(
    sql`select entry_id, outcome from serve_waiting_list(${inventoryId}::uuid, ${limit}::int, ${entryId}::uuid)`,
  )
  return rows.map((row) => ({ entryId: row.entry_id, outcome: row.outcome }))
}

/** Stores the keyed hashes of new offers' tokens. */
export async function setTokenHashes(db: Db, hashes: ReadonlyMap<string, string>): Promise<void> {
  if (hashes.size === 0) return
  await db.execute(sql`
    update waiting_entries as w set token_hash = t.hash
      from unnest(${sql.param([...hashes.keys()])}::uuid[], ${sql.param([...hashes.values()])}::text[]) as t(id, hash)
     where w.id = t.id`)
}

// Turns.

export type Turn = { id: string; inventoryId: string; attempts: number }

/** Leases up to `limit` due turns (`leaseDue`: SKIP LOCKED, so every process claims its own). */
export async function claimTurns(db: Db, limit: number, leaseSeconds: number): Promise<Turn[]> {
  const { rows } = await db.execute<{ id: string; inventory_id: string; attempts: number }>(
    sql`${leaseDue(waitingListTurns, { limit, leaseSeconds })} returning id, inventory_id, attempts`,
  )
  return rows.map((row) => ({ id: row.id, inventoryId: row.inventory_id, attempts: Number(row.attempts) }))
}

/** A turn served is done with: deleted, so turns never pile up. */
export async function deleteTurn(db: Db, id: string): Promise<void> {
  await db.delete(waitingListTurns).where(eq(waitingListTurns.id, id))
}

export async function retryTurn(db: Db, id: string, error: string, retryInMs: number | null): Promise<void> {
  await db
    .update(waitingListTurns)
    .set(
      retryInMs === null
        ? { status: 'failed', lastError: error }
        : { lastError: error, nextAttemptAt: sql`now() + make_interval(secs => ${retryInMs / 1000})` },
    )
    .where(eq(waitingListTurns.id, id))
}

/** Deletes up to `limit` turns given up on (`failed`) more than `days` ago; served turns are deleted at once. */
export async function purgeTurns(db: Db, days: number, limit: number): Promise<number> {
  const { rows } = await db.execute(sql`
    delete from waiting_list_turns
     where id in (
       select id from waiting_list_turns
        where status = 'failed' and created_at < now() - make_interval(days => ${days})
        limit ${limit}
        for update skip locked)
    returning id`)
  return rows.length
}

/**
 * The sweep: a turn for every inventory whose queue may have something to serve that no change
 * announced (a hold that simply ran out, an offer past its time): every queue with entries
 * waiting, and every inventory with an offer due to expire. Answers how many turns were queued.
 */
export async function queueSweepTurns(db: Db): Promise<number> {
  const { rows } = await db.execute<{ id: string }>(sql`
    insert into waiting_list_turns (inventory_id)
    select distinct w.inventory_id from waiting_entries w
     where (w.status = 'waiting' or (w.status = 'offered' and offer_lapsed(w.offer_expires_at)))
       and not exists (select 1 from waiting_list_turns t where t.inventory_id = w.inventory_id and t.status = 'pending' and t.locked_until is null)
    returning id`)
  return rows.length
}
