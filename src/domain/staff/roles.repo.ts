import { and, asc, count, eq, ilike, inArray, ne, or, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { staffPermissions } from './permissions.table.js'
import type { PermissionRow } from './permissions.repo.js'
import { staffRolePermissions, staffRoles } from './roles.table.js'
import { offsetOf, orderBy, type Page, type SearchOptions } from './search.js'
import { likePattern } from './staff-rules.js'

export type RoleRow = typeof staffRoles.$inferSelect
export type RoleWithPermissions = RoleRow & { permissions: string[] }

export const findRoleById = async (db: Db, id: string): Promise<RoleRow | undefined> =>
  (await db.select().from(staffRoles).where(eq(staffRoles.id, id)).limit(1))[0]

export const findRoleByName = async (db: Db, name: string): Promise<RoleRow | undefined> =>
  (await db.select().from(staffRoles).where(eq(staffRoles.name, name)).limit(1))[0]

/** Locks a role row until the transaction ends (serialises changes that count its holders). */
export const lockRoleByName = async (db: Db, name: string): Promise<RoleRow | undefined> =>
  (await db.select().from(staffRoles).where(eq(staffRoles.name, name)).for('update'))[0]

export const findRolesByNames = (db: Db, names: readonly string[]): Promise<RoleRow[]> =>
  names.length === 0
    ? Promise.resolve([])
    : db
        .select()
        .from(staffRoles)
        .where(inArray(staffRoles.name, [...names]))

export const isRoleNameTaken = async (db: Db, name: string, exceptId?: string): Promise<boolean> =>
  (
    await db
      .select({ id: staffRoles.id })
      .from(staffRoles)
      .where(and(eq(staffRoles.name, name), exceptId ? ne(staffRoles.id, exceptId) : undefined))
      .limit(1)
  ).length > 0

export async function insertRole(db: Db, values: { name: string; description: string; builtIn?: boolean }): Promise<RoleRow> {
  const [row] = await db.insert(staffRoles).values(values).returning()
  return row!
}

export async function updateRoleRow(db: Db, id: string, patch: { name?: string | undefined; description?: string | undefined }): Promise<RoleRow | undefined> {
  const [row] = await db
    .update(staffRoles)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(eq(staffRoles.id, id))
    .returning()
  return row
}

export const touchRole = (db: Db, id: string) => db.update(staffRoles).set({ updatedAt: sql`now()` }).where(eq(staffRoles.id, id))

export async function deleteRoleRow(db: Db, id: string): Promise<boolean> {
  const rows = await db.delete(staffRoles).where(eq(staffRoles.id, id)).returning({ id: staffRoles.id })
  return rows.length > 0
}

export async function searchRoleRows(db: Db, options: SearchOptions): Promise<Page<RoleRow>> {
  const where = options.q ? or(ilike(staffRoles.name, likePattern(options.q)), ilike(staffRoles.description, likePattern(options.q))) : undefined
  const rows = await db
    .select()
    .from(staffRoles)
    .where(where)
    .orderBy(...orderBy(options.sort, staffRoles))
    .limit(options.limit)
    .offset(offsetOf(options))
  const [total] = await db.select({ total: count() }).from(staffRoles).where(where)
  return { rows, total: Number(total?.total ?? 0) }
}

/** The permission names of each role, sorted. */
export async function permissionNamesByRole(db: Db, roleIds: readonly string[]): Promise<Map<string, string[]>> {
  const byRole = new Map<string, string[]>(roleIds.map((id) => [id, []]))
  if (roleIds.length === 0) return byRole
  const rows = await db
    .select({ roleId: staffRolePermissions.roleId, name: staffPermissions.name })
    .from(staffRolePermissions)
    .innerJoin(staffPermissions, eq(staffPermissions.id, staffRolePermissions.permissionId))
    .where(inArray(staffRolePermissions.roleId, [...roleIds]))
    .orderBy(asc(staffPermissions.name))
  for (const row of rows) byRole.get(row.roleId)?.push(row.name)
  return byRole
}

export async function withPermissions(db: Db, roles: RoleRow[]): Promise<RoleWithPermissions[]> {
  const names = await permissionNamesByRole(
    db,
    roles.map((r) => r.id),
  )
  return roles.map((role) => ({ ...role, permissions: names.get(role.id) ?? [] }))
}

export const permissionsOfRole = (db: Db, roleId: string): Promise<PermissionRow[]> =>
  db
    .select({
      id: staffPermissions.id,
      name: staffPermissions.name,
      description: staffPermissions.description,
      builtIn: staffPermissions.builtIn,
      createdAt: staffPermissions.createdAt,
      updatedAt: staffPermissions.updatedAt,
    })
    .from(staffRolePermissions)
    .innerJoin(staffPermissions, eq(staffPermissions.id, staffRolePermissions.permissionId))
    .where(eq(staffRolePermissions.roleId, roleId))
    .orderBy(asc(staffPermissions.name))

/** Names of every permission the given roles grant together. */
export async function permissionNamesOfRoles(db: Db, roleIds: readonly string[]): Promise<string[]> {
  if (roleIds.length === 0) return []
  const rows = await db
    .selectDistinct({ name: staffPermissions.name })
    .from(staffRolePermissions)
    .innerJoin(staffPermissions, eq(staffPermissions.id, staffRolePermissions.permissionId))
    .where(inArray(staffRolePermissions.roleId, [...roleIds]))
  return rows.map((r) => r.name)
}

export async function addRolePermissions(db: Db, roleId: string, permissionIds: readonly string[]): Promise<number> {
  if (permissionIds.length === 0) return 0
  const rows = await db
    .insert(staffRolePermissions)
    .values(permissionIds.map((permissionId) => ({ roleId, permissionId })))
    .onConflictDoNothing()
    .returning({ permissionId: staffRolePermissions.permissionId })
  return rows.length
}

export async function removeRolePermissions(db: Db, roleId: string, permissionIds: readonly string[]): Promise<number> {
  if (permissionIds.length === 0) return 0
  const rows = await db
    .delete(staffRolePermissions)
    .where(and(eq(staffRolePermissions.roleId, roleId), inArray(staffRolePermissions.permissionId, [...permissionIds])))
    .returning({ permissionId: staffRolePermissions.permissionId })
  return rows.length
}

/** Inserts the role, or marks an existing one of that name built-in; answers its id. */
export async function upsertBuiltInRole(db: Db, role: { name: string; description: string }): Promise<string> {
  await db
    .insert(staffRoles)
    .values({ ...role, builtIn: true })
    .onConflictDoUpdate({ target: staffRoles.name, set: { builtIn: true }, setWhere: sql`${staffRoles.builtIn} = false` })
  const found = await findRoleByName(db, role.name)
  return found!.id
}

/** Grants a role every existing permission; never removes any. */
export async function grantEveryPermission(db: Db, roleId: string) {
  await db.execute(sql`
    insert into ${staffRolePermissions} (role_id, permission_id)
    select ${roleId}::uuid, p.id from ${staffPermissions} p
    on conflict do nothing`)
}

/** Grants a permission to every built-in role (the admin role holds every permission). */
export async function grantToBuiltInRoles(db: Db, permissionId: string) {
  await db.execute(sql`
    insert into ${staffRolePermissions} (role_id, permission_id)
    select r.id, ${permissionId}::uuid from ${staffRoles} r where r.built_in
    on conflict do nothing`)
}
