import { and, asc, count, eq, exists, ilike, inArray, ne, or, sql } from 'drizzle-orm'
import { normalizeEmail } from '../../platform/auth/email.js'
import type { Db } from '../../platform/db/database.js'
import { staffPermissions } from './permissions.table.js'
import { staffRolePermissions, staffRoles } from './roles.table.js'
import type { RoleRow } from './roles.repo.js'
import { offsetOf, orderBy, type Page, type SearchOptions } from './search.js'
import { likePattern } from './staff-rules.js'
import { staffUserPermissions, staffUserRoles, staffUsers } from './users.table.js'

export type UserRow = typeof staffUsers.$inferSelect
/** A user as the API shows it: never with its password hash. */
export type StaffUser = Omit<UserRow, 'passwordHash'> & { roles: string[] }

export type EffectivePermission = { id: string; name: string; description: string; direct: boolean; roles: string[] }

const publicColumns = {
  id: staffUsers.id,
  name: staffUsers.name,
  email: staffUsers.email,
  createdAt: staffUsers.createdAt,
  updatedAt: staffUsers.updatedAt,
}

export const findUserById = async (db: Db, id: string): Promise<UserRow | undefined> =>
  (await db.select().from(staffUsers).where(eq(staffUsers.id, id)).limit(1))[0]

export const findUserByEmail = async (db: Db, email: string): Promise<UserRow | undefined> =>
  (
    await db
      .select()
      .from(staffUsers)
      .where(sql`lower(${staffUsers.email}) = ${normalizeEmail(email)}`)
      .limit(1)
  )[0]

export const isEmailTaken = async (db: Db, email: string, exceptId?: string): Promise<boolean> =>
  (
    await db
      .select({ id: staffUsers.id })
      .from(staffUsers)
      .where(and(sql`lower(${staffUsers.email}) = ${normalizeEmail(email)}`, exceptId ? ne(staffUsers.id, exceptId) : undefined))
      .limit(1)
  ).length > 0

export const hasAnyUser = async (db: Db): Promise<boolean> => (await db.select({ id: staffUsers.id }).from(staffUsers).limit(1)).length > 0

export async function insertUser(db: Db, values: { name: string; email: string; passwordHash: string }): Promise<UserRow> {
  const [row] = await db.insert(staffUsers).values(values).returning()
  return row!
}

export async function updateUserRow(
  db: Db,
  id: string,
  patch: { name?: string | undefined; email?: string | undefined; passwordHash?: string | undefined },
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(staffUsers)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(eq(staffUsers.id, id))
    .returning()
  return row
}

/** Replaces a password hash only if it is still `previous` (a rehash must not undo a reset). */
export async function replacePasswordHash(db: Db, id: string, previous: string, next: string): Promise<void> {
  await db
    .update(staffUsers)
    .set({ passwordHash: next })
    .where(and(eq(staffUsers.id, id), eq(staffUsers.passwordHash, previous)))
}

export const touchUser = (db: Db, id: string) => db.update(staffUsers).set({ updatedAt: sql`now()` }).where(eq(staffUsers.id, id))

export async function deleteUserRow(db: Db, id: string): Promise<boolean> {
  const rows = await db.delete(staffUsers).where(eq(staffUsers.id, id)).returning({ id: staffUsers.id })
  return rows.length > 0
}

export async function searchUserRows(db: Db, options: SearchOptions & { role?: string | undefined }): Promise<Page<StaffUser>> {
  const pattern = options.q ? likePattern(options.q) : undefined
  const where = and(
    pattern ? or(ilike(staffUsers.name, pattern), ilike(staffUsers.email, pattern)) : undefined,
    options.role
      ? exists(
          db
            .select({ one: sql`1` })
            .from(staffUserRoles)
            .innerJoin(staffRoles, eq(staffRoles.id, staffUserRoles.roleId))
            .where(and(eq(staffUserRoles.userId, staffUsers.id), eq(staffRoles.name, options.role))),
        )
      : undefined,
  )
  const rows = await db
    .select(publicColumns)
    .from(staffUsers)
    .where(where)
    .orderBy(...orderBy(options.sort, staffUsers))
    .limit(options.limit)
    .offset(offsetOf(options))
  const [total] = await db.select({ total: count() }).from(staffUsers).where(where)
  return { rows: await withRoles(db, rows), total: Number(total?.total ?? 0) }
}

/** Adds each user's role names, sorted. */
export async function withRoles<T extends { id: string }>(db: Db, users: T[]): Promise<(Omit<T, 'passwordHash'> & { roles: string[] })[]> {
  const byUser = new Map<string, string[]>(users.map((u) => [u.id, []]))
  if (users.length > 0) {
    const rows = await db
      .select({ userId: staffUserRoles.userId, name: staffRoles.name })
      .from(staffUserRoles)
      .innerJoin(staffRoles, eq(staffRoles.id, staffUserRoles.roleId))
      .where(inArray(staffUserRoles.userId, [...byUser.keys()]))
      .orderBy(asc(staffRoles.name))
    for (const row of rows) byUser.get(row.userId)?.push(row.name)
  }
  return users.map((user) => {
    const { passwordHash: _hidden, ...rest } = user as T & { passwordHash?: string }
    return { ...rest, roles: byUser.get(user.id) ?? [] }
  })
}

export const rolesOfUser = (db: Db, userId: string): Promise<RoleRow[]> =>
  db
    .select({
      id: staffRoles.id,
      name: staffRoles.name,
      description: staffRoles.description,
      builtIn: staffRoles.builtIn,
      createdAt: staffRoles.createdAt,
      updatedAt: staffRoles.updatedAt,
    })
    .from(staffUserRoles)
    .innerJoin(staffRoles, eq(staffRoles.id, staffUserRoles.roleId))
    .where(eq(staffUserRoles.userId, userId))
    .orderBy(asc(staffRoles.name))

export async function addUserRoles(db: Db, userId: string, roleIds: readonly string[]) {
  if (roleIds.length === 0) return
  await db
    .insert(staffUserRoles)
    .values(roleIds.map((roleId) => ({ userId, roleId })))
    .onConflictDoNothing()
}

export async function removeUserRoles(db: Db, userId: string, roleIds: readonly string[]) {
  if (roleIds.length === 0) return
  await db.delete(staffUserRoles).where(and(eq(staffUserRoles.userId, userId), inArray(staffUserRoles.roleId, [...roleIds])))
}

/** How many users other than `exceptUserId` hold the role. */
export async function countRoleHoldersExcept(db: Db, roleId: string, exceptUserId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(staffUserRoles)
    .where(and(eq(staffUserRoles.roleId, roleId), ne(staffUserRoles.userId, exceptUserId)))
  return Number(row?.n ?? 0)
}

export async function directPermissionIdsOfUser(db: Db, userId: string): Promise<string[]> {
  const rows = await db.select({ id: staffUserPermissions.permissionId }).from(staffUserPermissions).where(eq(staffUserPermissions.userId, userId))
  return rows.map((r) => r.id)
}

export async function addUserPermissions(db: Db, userId: string, permissionIds: readonly string[]): Promise<number> {
  if (permissionIds.length === 0) return 0
  const rows = await db
    .insert(staffUserPermissions)
    .values(permissionIds.map((permissionId) => ({ userId, permissionId })))
    .onConflictDoNothing()
    .returning({ permissionId: staffUserPermissions.permissionId })
  return rows.length
}

export async function removeUserPermissions(db: Db, userId: string, permissionIds: readonly string[]): Promise<number> {
  if (permissionIds.length === 0) return 0
  const rows = await db
    .delete(staffUserPermissions)
    .where(and(eq(staffUserPermissions.userId, userId), inArray(staffUserPermissions.permissionId, [...permissionIds])))
    .returning({ permissionId: staffUserPermissions.permissionId })
  return rows.length
}

/**
 * The user's effective permissions: granted directly or through any of its roles, with
 * where each comes from. Sorted by name.
 */
export async function effectivePermissionsOfUser(db: Db, userId: string): Promise<EffectivePermission[]> {
  const result = await db.execute<{ id: string; name: string; description: string; direct: boolean; roles: string[] | null }>(sql`
    select p.id, p.name, p.description,
           exists (select 1 from ${staffUserPermissions} up where up.user_id = ${userId} and up.permission_id = p.id) as direct,
           array(select r.name
                   from ${staffUserRoles} ur
                   join ${staffRolePermissions} rp on rp.role_id = ur.role_id
                   join ${staffRoles} r on r.id = ur.role_id
                  where ur.user_id = ${userId} and rp.permission_id = p.id
                  order by r.name) as roles
      from ${staffPermissions} p
     where p.id in (select up.permission_id from ${staffUserPermissions} up where up.user_id = ${userId}
                    union
                    select rp.permission_id from ${staffUserRoles} ur
                      join ${staffRolePermissions} rp on rp.role_id = ur.role_id
                     where ur.user_id = ${userId})
     order by p.name`)
  return result.rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    direct: Boolean(row.direct),
    roles: row.roles ?? [],
  }))
}

/** Names of the user's effective permissions. */
export async function effectivePermissionNames(db: Db, userId: string): Promise<string[]> {
  return (await effectivePermissionsOfUser(db, userId)).map((p) => p.name)
}
