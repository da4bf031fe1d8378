import { and, count, desc, eq, gt, isNull, ne, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { offsetOf, type Page, type Paging } from '../../platform/db/paging.js'
import { sellers } from '../sellers/sellers.table.js'
import { checkinDevices } from './checkin.table.js'

export type DeviceRow = typeof checkinDevices.$inferSelect

export const insertDevice = async (db: Db, values: typeof checkinDevices.$inferInsert) => (await db.insert(checkinDevices).values(values).returning())[0]!

/** A seller's devices, revoked ones included, newest first. */
export async function listDeviceRows(db: Db, sellerId: string, paging: Paging): Promise<Page<DeviceRow>> {
  const where = eq(checkinDevices.sellerId, sellerId)
  const rows = await db
    .select()
    .from(checkinDevices)
    .where(where)
    .orderBy(desc(checkinDevices.createdAt), desc(checkinDevices.id))
    .limit(paging.limit)
    .offset(offsetOf(paging))
  const [total] = await db.select({ n: count() }).from(checkinDevices).where(where)
  return { rows, total: total?.n ?? 0 }
}

export const findDevice = async (db: Db, id: string) => (await db.select().from(checkinDevices).where(eq(checkinDevices.id, id)))[0]

/** Whether a device of a seller other than `exceptSellerId` is in use: paired, or waiting to pair with a live code; not revoked. */
export async function hasDevicesInUse(db: Db, exceptSellerId: string | null): Promise<boolean> {
  const [row] = await db
    .select({ id: checkinDevices.id })
    .from(checkinDevices)
    .where(
      and(
        isNull(checkinDevices.revokedAt),
        sql`(${checkinDevices.pairedAt} is not null or ${checkinDevices.pairingExpiresAt} > now())`,
        exceptSellerId ? ne(checkinDevices.sellerId, exceptSellerId) : undefined,
      ),
    )
    .limit(1)
  return row !== undefined
}

/**
 * Exchanges a live pairing code for a token in one statement: of two calls with one code at
 * the same moment, the second finds the code gone (its update waits for the first's row lock,
 * then sees the hash cleared) and gets nothing.
 */
export const pairDeviceRow = async (db: Db, pairingCodeHash: string, values: { tokenHash: string; hardware: string | null; software: string | null }) =>
  (
    await db
      .update(checkinDevices)
      .set({ ...values, pairingCodeHash: null, pairingExpiresAt: null, pairedAt: sql`now()`, lastSeenAt: sql`now()` })
      .where(
        and(
          eq(checkinDevices.pairingCodeHash, pairingCodeHash),
          gt(checkinDevices.pairingExpiresAt, sql`now()`),
          isNull(checkinDevices.revokedAt),
          sql`exists (select 1 from ${sellers} where ${sellers.id} = ${checkinDevices.sellerId} and ${sellers.status} = 'active')`,
        ),
      )
      .returning()
  )[0]

/** Revokes a device (its token and any unused pairing code); answers it, or nothing when there is no such device. */
export const revokeDeviceRow = async (db: Db, id: string) =>
  (
    await db
      .update(checkinDevices)
      .set({ revokedAt: sql`coalesce(${checkinDevices.revokedAt}, now())`, pairingCodeHash: null, pairingExpiresAt: null })
      .where(eq(checkinDevices.id, id))
      .returning()
  )[0]

/** The live device holding this token, of an active seller, with its seller's time zone. */
export const findDeviceByTokenHash = async (db: Db, tokenHash: string) =>
  (
    await db
      .select({ device: checkinDevices, timezone: sellers.timezone })
      .from(checkinDevices)
      .innerJoin(sellers, eq(sellers.id, checkinDevices.sellerId))
      .where(and(eq(checkinDevices.tokenHash, tokenHash), isNull(checkinDevices.revokedAt), eq(sellers.status, 'active')))
  )[0]

/** Records that the device was seen, at most once a minute. */
export const touchDevice = (db: Db, id: string) =>
  db
    .update(checkinDevices)
    .set({ lastSeenAt: sql`now()` })
    .where(and(eq(checkinDevices.id, id), sql`${checkinDevices.lastSeenAt} is null or ${checkinDevices.lastSeenAt} < now() - interval '1 minute'`))
