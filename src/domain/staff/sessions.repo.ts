import { and, eq, isNull, sql } from 'drizzle-orm'
import { normalizeEmail } from '../../platform/auth/email.js'
import type { Db } from '../../platform/db/database.js'
import { staffPermissions } from './permissions.table.js'
import { staffRolePermissions, staffRoles } from './roles.table.js'
import { staffKnownAddresses, staffRefreshTokens, staffSessions } from './sessions.table.js'
import { staffUserPermissions, staffUserRoles, staffUsers } from './users.table.js'

export type SessionRevokeReason = 'logout' | 'password_changed' | 'refresh_token_reuse' | 'user_deleted'

export async function insertSession(db: Db, userId: string): Promise<string> {
  const [row] = await db.insert(staffSessions).values({ userId }).returning({ id: staffSessions.id })
  return row!.id
}

export async function insertRefreshToken(db: Db, values: { sessionId: string; tokenHash: string; ttlSeconds: number }) {
  await db.insert(staffRefreshTokens).values({
    sessionId: values.sessionId,
    tokenHash: values.tokenHash,
    expiresAt: sql`now() + make_interval(secs => ${values.ttlSeconds})`,
  })
}

/**
 * Marks a refresh token used if it is unused, unexpired and its session live: one
 * conditional UPDATE, so of concurrent callers exactly one gets the row back.
 */
export async function consumeRefreshToken(db: Db, tokenHash: string): Promise<{ sessionId: string; userId: string } | undefined> {
  const result = await db.execute<{ session_id: string; user_id: string }>(sql`
    update ${staffRefreshTokens} t
       set used_at = now()
      from ${staffSessions} s
     where t.token_hash = ${tokenHash}
       and t.used_at is null
       and t.expires_at > now()
       and s.id = t.session_id
       and s.revoked_at is null
    returning t.session_id, s.user_id`)
  const row = result.rows[0]
  return row ? { sessionId: row.session_id, userId: row.user_id } : undefined
}

export async function findRefreshToken(db: Db, tokenHash: string) {
  const [row] = await db
    .select({ sessionId: staffRefreshTokens.sessionId, usedAt: staffRefreshTokens.usedAt, userId: staffSessions.userId })
    .from(staffRefreshTokens)
    .innerJoin(staffSessions, eq(staffSessions.id, staffRefreshTokens.sessionId))
    .where(eq(staffRefreshTokens.tokenHash, tokenHash))
    .limit(1)
  return row
}

/** Revokes one session (and so every refresh and access token of it); answers whether it was live. */
export async function revokeSession(db: Db, sessionId: string, reason: SessionRevokeReason): Promise<boolean> {
  const rows = await db
    .update(staffSessions)
    .set({ revokedAt: sql`now()`, revokedReason: reason })
    .where(and(eq(staffSessions.id, sessionId), isNull(staffSessions.revokedAt)))
    .returning({ id: staffSessions.id })
  return rows.length > 0
}

/** Revokes every live session of a user; answers how many. */
export async function revokeUserSessions(db: Db, userId: string, reason: SessionRevokeReason): Promise<number> {
  const rows = await db
    .update(staffSessions)
    .set({ revokedAt: sql`now()`, revokedReason: reason })
    .where(and(eq(staffSessions.userId, userId), isNull(staffSessions.revokedAt)))
    .returning({ id: staffSessions.id })
  return rows.length
}

/**
 * Housekeeping: forgets the user's sessions whose refresh tokens have all expired (no
 * token of theirs can work any more, access tokens included), with their tokens.
 */
export async function pruneUserSessions(db: Db, userId: string): Promise<void> {
  await db.execute(sql`
    delete from ${staffSessions} s
     where s.user_id = ${userId}
       and not exists (select 1 from ${staffRefreshTokens} t where t.session_id = s.id and t.expires_at > now())`)
}

export type StaffPrincipalRow = { id: string; name: string; email: string; roles: string[]; permissions: string[] }

/**
 * The user behind a live session, with its role names and effective permission names, in
 * one round trip. Undefined when the user is gone or the session is revoked.
 */
export async function findStaffPrincipal(db: Db, userId: string, sessionId: string): Promise<StaffPrincipalRow | undefined> {
  const result = await db.execute<{ id: string; name: string; email: string; roles: string[] | null; permissions: string[] | null }>(sql`
    select u.id, u.name, u.email,
           array(select r.name from ${staffUserRoles} ur join ${staffRoles} r on r.id = ur.role_id
                  where ur.user_id = u.id order by r.name) as roles,
           array(select p.name from ${staffPermissions} p
                  where p.id in (select up.permission_id from ${staffUserPermissions} up where up.user_id = u.id
                                 union
                                 select rp.permission_id from ${staffUserRoles} ur
                                   join ${staffRolePermissions} rp on rp.role_id = ur.role_id
                                  where ur.user_id = u.id)
                  order by p.name) as permissions
      from ${staffUsers} u
      join ${staffSessions} s on s.user_id = u.id
     where u.id = ${userId} and s.id = ${sessionId} and s.revoked_at is null`)
  const row = result.rows[0]
  return row ? { id: row.id, name: row.name, email: row.email, roles: row.roles ?? [], permissions: row.permissions ?? [] } : undefined
}

/** How long a client address stays known after a sign-in from it. */
const KNOWN_ADDRESS_DAYS = 30

/** Records (or renews) a client address the user signed in from with the right password. */
export async function rememberAddress(db: Db, userId: string, addressHash: string): Promise<void> {
  await db
    .insert(staffKnownAddresses)
    .values({ userId, addressHash })
    .onConflictDoUpdate({ target: [staffKnownAddresses.userId, staffKnownAddresses.addressHash], set: { lastSignedInAt: sql`now()` } })
}

/** Whether the user with this email signed in from this address within the last 30 days. */
export async function isKnownAddress(db: Db, email: string, addressHash: string): Promise<boolean> {
  const result = await db.execute(sql`
    select 1 from ${staffKnownAddresses} a
      join ${staffUsers} u on u.id = a.user_id
     where lower(u.email) = ${normalizeEmail(email)}
       and a.address_hash = ${addressHash}
       and a.last_signed_in_at > now() - make_interval(days => ${KNOWN_ADDRESS_DAYS})`)
  return result.rows.length > 0
}
