import { and, asc, count, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { orders, tickets } from '../orders/orders.table.js'
import { ticketSigningKeys } from './ticket-keys.table.js'

export type TicketKeyRow = typeof ticketSigningKeys.$inferSelect
export type NewTicketKey = Omit<typeof ticketSigningKeys.$inferInsert, 'createdAt' | 'retiredAt'> & { id: string }

/** The channel on which a change of a seller's keys is announced (payload: the seller's id). */
export const TICKET_KEYS_CHANNEL = 'ticket_keys'

const keys = ticketSigningKeys

/** The seller's keys that still verify (not retired), oldest first. */
export const liveKeyRows = (db: Db, sellerId: string) =>
  db
    .select()
    .from(keys)
    .where(and(eq(keys.sellerId, sellerId), isNull(keys.retiredAt)))
    .orderBy(asc(keys.createdAt), asc(keys.id))

/** A page of the seller's keys, retired ones included, oldest first, and the total. */
export async function pageKeyRows(db: Db, sellerId: string, limit: number, offset: number) {
  const [rows, [total]] = await Promise.all([
    db.select().from(keys).where(eq(keys.sellerId, sellerId)).orderBy(asc(keys.createdAt), asc(keys.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(keys).where(eq(keys.sellerId, sellerId)),
  ])
  return { rows, total: Number(total?.n ?? 0) }
}

export const keyRowsById = (db: Db, ids: readonly string[]) =>
  db
    .select()
    .from(keys)
    .where(inArray(keys.id, [...ids]))

export const findActiveKeyRow = async (db: Db, sellerId: string, lock = false) => {
  const query = db
    .select()
    .from(keys)
    .where(and(eq(keys.sellerId, sellerId), eq(keys.active, true)))
  return (await (lock ? query.for('update') : query))[0]
}

export const findLegacyKeyRow = async (db: Db, sellerId: string) =>
  (
    await db
      .select()
      .from(keys)
      .where(and(eq(keys.sellerId, sellerId), eq(keys.legacy, true)))
  )[0]

/** Locks the seller's key of this `kid` (a retire and the orders signing with it take turns). */
export const lockKeyRow = async (db: Db, sellerId: string, kid: string) =>
  (
    await db
      .select()
      .from(keys)
      .where(and(eq(keys.sellerId, sellerId), eq(keys.kid, kid)))
      .for('update')
  )[0]

/** Writes keys; one the seller already has (an active or a legacy key made at once by another process) is left out. */
export const insertKeyRows = (db: Db, rows: NewTicketKey[]) => db.insert(keys).values(rows).onConflictDoNothing().returning()

export const deactivateKeyRow = (db: Db, id: string) => db.update(keys).set({ active: false }).where(eq(keys.id, id))

export const retireKeyRow = async (db: Db, id: string) => (await db.update(keys).set({ retiredAt: sql`now()` }).where(eq(keys.id, id)).returning())[0]!

/** Whether the seller has tickets issued before keys were stored (signed by its legacy key). */
export const hasLegacyTickets = async (db: Db, sellerId: string) =>
  (
    await db
      .select({ one: sql`1` })
      .from(tickets)
      .innerJoin(orders, eq(orders.id, tickets.orderId))
      .where(and(eq(orders.sellerId, sellerId), isNull(tickets.signingKeyId)))
      .limit(1)
  ).length > 0

/**
 * Points the seller's valid tickets signed by `from` at the key `to`, their `code_version` bumped
 * (docs/transfers.md), marked changed for the scanners' feed; answers how many. The legacy key signed the tickets whose key is null.
 */
export async function resignTickets(db: Db, sellerId: string, from: TicketKeyRow, to: string): Promise<number> {
  const signedByFrom = from.legacy ? sql`(${tickets.signingKeyId} = ${from.id} or ${tickets.signingKeyId} is null)` : eq(tickets.signingKeyId, from.id)
  const rows = await db
    .update(tickets)
    .set({ signingKeyId: to, codeVersion: sql`${tickets.codeVersion} + 1`, changedXid: sql`pg_current_xact_id()` })
    .where(
      and(
        signedByFrom,
        isNull(tickets.voidedAt),
        isNull(tickets.transferredAt),
        inArray(tickets.orderId, db.select({ id: orders.id }).from(orders).where(eq(orders.sellerId, sellerId))),
      ),
    )
    .returning({ id: tickets.id })
  return rows.length
}

/** Points tickets issued without a key (the seller had none yet) at its active key. */
export const setTicketsKey = (db: Db, ticketIds: readonly string[], keyId: string) =>
  db
    .update(tickets)
    .set({ signingKeyId: keyId })
    .where(and(inArray(tickets.id, [...ticketIds]), isNull(tickets.signingKeyId)))

/** Tells every process, at commit, that the seller's keys changed. */
export const announceKeysChanged = (db: Db, sellerId: string) => db.execute(sql`select pg_notify(${TICKET_KEYS_CHANNEL}, ${sellerId})`)
