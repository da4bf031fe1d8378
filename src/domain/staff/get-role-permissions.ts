import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { PermissionRow } from './permissions.repo.js'
import { findRoleById, permissionsOfRole } from './roles.repo.js'

/** The permissions of a role, sorted by name; 404 for an unknown role. */
export async function getRolePermissions(db: Db, roleId: string): Promise<PermissionRow[]> {
  if (!(await findRoleById(db, roleId))) throw new AppError('not_found')
  return permissionsOfRole(db, roleId)
}
