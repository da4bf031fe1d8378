import { eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { staffPasswordResets } from './password-resets.table.js'

export async function insertPasswordReset(db: Db, values: { userId: string; tokenHash: string; ttlSeconds: number }) {
  await db.insert(staffPasswordResets).values({
    userId: values.userId,
    tokenHash: values.tokenHash,
    expiresAt: sql`now() + make_interval(secs => ${values.ttlSeconds})`,
  })
}

/** A reset token's row, used or not, without changing it. */
export const findPasswordReset = async (db: Db, tokenHash: string) =>
  (await db.select({ userId: staffPasswordResets.userId }).from(staffPasswordResets).where(eq(staffPasswordResets.tokenHash, tokenHash)))[0]

/**
 * Uses a reset token: one conditional UPDATE, so of concurrent callers exactly one gets the
 * user id back; a used or expired token answers undefined.
 */
export async function consumePasswordReset(db: Db, tokenHash: string): Promise<string | undefined> {
  const result = await db.execute<{ user_id: string }>(sql`
    update ${staffPasswordResets}
       set used_at = now()
     where token_hash = ${tokenHash} and used_at is null and expires_at > now()
    returning user_id`)
  return result.rows[0]?.user_id
}

/** Forgets every reset token of a user, used or not: none of them works any more. */
export async function deleteUserPasswordResets(db: Db, userId: string) {
  await db.delete(staffPasswordResets).where(eq(staffPasswordResets.userId, userId))
}
