import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findRoleById, withPermissions, type RoleWithPermissions } from './roles.repo.js'

/** One role with its permission names, or 404. */
export async function getRole(db: Db, id: string): Promise<RoleWithPermissions> {
  const role = await findRoleById(db, id)
  if (!role) throw new AppError('not_found')
  const [withNames] = await withPermissions(db, [role])
  return withNames!
}
