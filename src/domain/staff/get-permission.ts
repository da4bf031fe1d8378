import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findPermissionById, type PermissionRow } from './permissions.repo.js'

/** One permission, or 404. */
export async function getPermission(db: Db, id: string): Promise<PermissionRow> {
  const permission = await findPermissionById(db, id)
  if (!permission) throw new AppError('not_found')
  return permission
}
