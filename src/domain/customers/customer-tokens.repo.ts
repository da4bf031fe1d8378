import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { customerOneTimeTokens, customerRefreshTokens, type OneTimeTokenPurpose } from './customer-tokens.table.js'

export type RefreshTokenRow = typeof customerRefreshTokens.$inferSelect

// Lifetimes are counted on the database clock, the one every `expires_at > now()` reads.
const expiresIn = (seconds: number) => sql`now() + make_interval(secs => ${seconds})`

export async function insertRefreshToken(
  db: Db,
  values: { sellerId: string; customerId: string; familyId: string; tokenHash: string; ttlSeconds: number },
): Promise<void> {
  const { ttlSeconds, ...rest } = values
  await db.insert(customerRefreshTokens).values({ ...rest, expiresAt: expiresIn(ttlSeconds) })
}

/**
 * Marks a live refresh token used and answers it, in one conditional statement: of several
 * concurrent calls with the same token exactly one gets the row (the others wait for its row
 * lock, then find `used_at` set).
 */
export const useRefreshToken = async (db: Db, sellerId: string, tokenHash: string) =>
  (
    await db
      .update(customerRefreshTokens)
      .set({ usedAt: sql`now()` })
      .where(
        and(
          eq(customerRefreshTokens.tokenHash, tokenHash),
          eq(customerRefreshTokens.sellerId, sellerId),
          isNull(customerRefreshTokens.usedAt),
          isNull(customerRefreshTokens.revokedAt),
          gt(customerRefreshTokens.expiresAt, sql`now()`),
        ),
      )
      .returning()
  )[0]

/**
 * A refresh token of this seller, locked until the transaction ends. Whoever revokes a family
 * because its token was presented again takes this lock first, and those who lost the race to use
 * the token may already hold it (a conditional UPDATE that waited for the winner keeps the row it
 * rechecked locked): so they queue on the token, none holding another row of the family that the
 * next one needs, and never deadlock.
 */
export const lockRefreshToken = async (db: Db, sellerId: string, tokenHash: string) =>
  (
    await db
      .select()
      .from(customerRefreshTokens)
      .where(and(eq(customerRefreshTokens.tokenHash, tokenHash), eq(customerRefreshTokens.sellerId, sellerId)))
      .for('update')
  )[0]

/**
 * Whether a session (refresh-token family) of this customer of this seller is live: it holds a
 * refresh token not used, revoked or expired. Every access token names its session, so logout,
 * a password reset or a reused refresh token ends the access tokens too.
 */
export const isSessionLive = async (db: Db, sellerId: string, customerId: string, sessionId: string) =>
  (
    await db
      .select({ id: customerRefreshTokens.id })
      .from(customerRefreshTokens)
      .where(
        and(
          eq(customerRefreshTokens.familyId, sessionId),
          eq(customerRefreshTokens.customerId, customerId),
          eq(customerRefreshTokens.sellerId, sellerId),
          isNull(customerRefreshTokens.usedAt),
          isNull(customerRefreshTokens.revokedAt),
          gt(customerRefreshTokens.expiresAt, sql`now()`),
        ),
      )
      .limit(1)
  ).length > 0

/** Revokes every token of a family not revoked yet; answers how many. */
export const revokeRefreshFamily = async (db: Db, familyId: string) =>
  (
    await db
      .update(customerRefreshTokens)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(customerRefreshTokens.familyId, familyId), isNull(customerRefreshTokens.revokedAt)))
      .returning({ id: customerRefreshTokens.id })
  ).length

/** Revokes every live refresh token of a customer; answers how many. */
export const revokeCustomerRefreshTokens = async (db: Db, customerId: string) =>
  (
    await db
      .update(customerRefreshTokens)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(customerRefreshTokens.customerId, customerId),
          isNull(customerRefreshTokens.revokedAt),
          isNull(customerRefreshTokens.usedAt),
          gt(customerRefreshTokens.expiresAt, sql`now()`),
        ),
      )
      .returning({ id: customerRefreshTokens.id })
  ).length

export async function insertOneTimeToken(
  db: Db,
  values: { sellerId: string; customerId: string; purpose: OneTimeTokenPurpose; tokenHash: string; ttlSeconds: number },
): Promise<void> {
  const { ttlSeconds, ...rest } = values
  await db.insert(customerOneTimeTokens).values({ ...rest, expiresAt: expiresIn(ttlSeconds) })
}

const liveOneTimeToken = (sellerId: string, purpose: OneTimeTokenPurpose, tokenHash: string) =>
  and(
    eq(customerOneTimeTokens.tokenHash, tokenHash),
    eq(customerOneTimeTokens.sellerId, sellerId),
    eq(customerOneTimeTokens.purpose, purpose),
    isNull(customerOneTimeTokens.usedAt),
    gt(customerOneTimeTokens.expiresAt, sql`now()`),
  )

/** The customer of an unused, unexpired token, without using it up. */
export const findLiveOneTimeToken = async (db: Db, sellerId: string, purpose: OneTimeTokenPurpose, tokenHash: string) =>
  (
    await db
      .select({ customerId: customerOneTimeTokens.customerId })
      .from(customerOneTimeTokens)
      .where(liveOneTimeToken(sellerId, purpose, tokenHash))
  )[0]

/** Uses up a live token in one conditional statement (single use under concurrency); answers its customer. */
export const consumeOneTimeToken = async (db: Db, sellerId: string, purpose: OneTimeTokenPurpose, tokenHash: string) =>
  (
    await db
      .update(customerOneTimeTokens)
      .set({ usedAt: sql`now()` })
      .where(liveOneTimeToken(sellerId, purpose, tokenHash))
      .returning({ customerId: customerOneTimeTokens.customerId })
  )[0]

/** Uses up every outstanding token of these purposes of a customer (after a password change). */
export const voidOneTimeTokens = (db: Db, customerId: string, purposes: OneTimeTokenPurpose[]) =>
  db
    .update(customerOneTimeTokens)
    .set({ usedAt: sql`now()` })
    .where(and(eq(customerOneTimeTokens.customerId, customerId), inArray(customerOneTimeTokens.purpose, purposes), isNull(customerOneTimeTokens.usedAt)))
