import { and, count, eq, ilike, inArray, ne, or, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { staffPermissions } from './permissions.table.js'
import { offsetOf, orderBy, type Page, type SearchOptions } from './search.js'
import { likePattern } from './staff-rules.js'

export type PermissionRow = typeof staffPermissions.$inferSelect

export const findPermissionById = async (db: Db, id: string): Promise<PermissionRow | undefined> =>
  (await db.select().from(staffPermissions).where(eq(staffPermissions.id, id)).limit(1))[0]

export const findPermissionsByNames = (db: Db, names: readonly string[]): Promise<PermissionRow[]> =>
  names.length === 0
    ? Promise.resolve([])
    : db
        .select()
        .from(staffPermissions)
        .where(inArray(staffPermissions.name, [...names]))

export const findPermissionsByIds = (db: Db, ids: readonly string[]): Promise<PermissionRow[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .select()
        .from(staffPermissions)
        .where(inArray(staffPermissions.id, [...ids]))
        .orderBy(staffPermissions.name)

export const isPermissionNameTaken = async (db: Db, name: string, exceptId?: string): Promise<boolean> =>
  (
    await db
      .select({ id: staffPermissions.id })
      .from(staffPermissions)
      .where(and(eq(staffPermissions.name, name), exceptId ? ne(staffPermissions.id, exceptId) : undefined))
      .limit(1)
  ).length > 0

export async function insertPermission(db: Db, values: { name: string; description: string }): Promise<PermissionRow> {
  const [row] = await db.insert(staffPermissions).values(values).returning()
  return row!
}

export async function updatePermissionRow(
  db: Db,
  id: string,
  patch: { name?: string | undefined; description?: string | undefined },
): Promise<PermissionRow | undefined> {
  const [row] = await db
    .update(staffPermissions)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(eq(staffPermissions.id, id))
    .returning()
  return row
}

export async function deletePermissionRow(db: Db, id: string): Promise<boolean> {
  const rows = await db.delete(staffPermissions).where(eq(staffPermissions.id, id)).returning({ id: staffPermissions.id })
  return rows.length > 0
}

export async function searchPermissionRows(db: Db, options: SearchOptions): Promise<Page<PermissionRow>> {
  const where = options.q ? or(ilike(staffPermissions.name, likePattern(options.q)), ilike(staffPermissions.description, likePattern(options.q))) : undefined
  const rows = await db
    .select()
    .from(staffPermissions)
    .where(where)
    .orderBy(...orderBy(options.sort, staffPermissions))
    .limit(options.limit)
    .offset(offsetOf(options))
  const [total] = await db.select({ total: count() }).from(staffPermissions).where(where)
  return { rows, total: Number(total?.total ?? 0) }
}

/** Inserts the given permissions, or marks existing ones of those names built-in. */
export async function upsertBuiltInPermissions(db: Db, permissions: readonly { name: string; description: string }[]) {
  await db
    .insert(staffPermissions)
    .values(permissions.map((p) => ({ ...p, builtIn: true })))
    .onConflictDoUpdate({ target: staffPermissions.name, set: { builtIn: true }, setWhere: sql`${staffPermissions.builtIn} = false` })
}
