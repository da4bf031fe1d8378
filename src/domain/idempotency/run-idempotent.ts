import { createHash } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { idempotencyKeys } from './idempotency-keys.table.js'

/** An `Idempotency-Key` sent with a call, and what identifies the call it was sent with. */
export type IdempotencyGuard = { sellerId: string; key: string; request: unknown }

export const IDEMPOTENCY_WINDOW_HOURS = 24

/** The same operation, target, caller and body hash alike; anything else differs. */
export const fingerprintOf = (request: unknown) => createHash('sha256').update(JSON.stringify(request)).digest('base64url')

/**
 * Runs `work` at most once per key: call it inside the transaction of the work. The key row is
 * written first, so a concurrent call with the same key waits on the unique index until this
 * transaction ends, then replays what it stored (or, if it rolled back, does the work itself).
 * Only successful answers are stored: a refused attempt leaves the key free for a retry.
 * Same key, different request: 409 `idempotency_conflict`.
 */
export async function runIdempotent<T>(
  tx: Db,
  guard: IdempotencyGuard | undefined,
  status: number,
  work: () => Promise<T>,
): Promise<{ body: T; replayed: boolean }> {
  if (!guard) return { body: await work(), replayed: false }
  const fingerprint = fingerprintOf(guard.request)
  const [claimed] = await tx
    .insert(idempotencyKeys)
    .values({ sellerId: guard.sellerId, key: guard.key, fingerprint })
    .onConflictDoUpdate({
      target: [idempotencyKeys.sellerId, idempotencyKeys.key],
      set: { fingerprint, responseStatus: null, responseBody: null, createdAt: sql`now()` },
      // A key older than the window is free again.
      setWhere: sql`${idempotencyKeys.createdAt} < now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`,
    })
    .returning({ id: idempotencyKeys.id })

  if (!claimed) {
    const [stored] = await tx
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.sellerId, guard.sellerId), eq(idempotencyKeys.key, guard.key)))
    if (!stored || stored.fingerprint !== fingerprint || stored.responseStatus !== status || stored.responseBody === null) {
      throw new AppError('idempotency_conflict')
    }
    return { body: JSON.parse(stored.responseBody) as T, replayed: true }
  }

  const body = await work()
  await tx
    .update(idempotencyKeys)
    .set({ responseStatus: status, responseBody: JSON.stringify(body) })
    .where(eq(idempotencyKeys.id, claimed.id))
  return { body, replayed: false }
}

/**
 * The answer stored for this key, without claiming it: for a repeat refused before its
 * transaction opens (a precheck), which must still replay what the first call answered. The same
 * key with another request: 409 `idempotency_conflict`. Nothing stored (no such key, one past the
 * window, or one whose first call has not answered yet): undefined.
 */
export async function storedAnswer<T>(db: Db, guard: IdempotencyGuard, status: number): Promise<T | undefined> {
  const [stored] = await db
    .select()
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.sellerId, guard.sellerId),
        eq(idempotencyKeys.key, guard.key),
        sql`${idempotencyKeys.createdAt} >= now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`,
      ),
    )
  if (!stored) return undefined
  if (stored.fingerprint !== fingerprintOf(guard.request)) throw new AppError('idempotency_conflict')
  return stored.responseStatus === status && stored.responseBody !== null ? (JSON.parse(stored.responseBody) as T) : undefined
}
