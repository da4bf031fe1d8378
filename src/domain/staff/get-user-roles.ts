import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { withPermissions, type RoleWithPermissions } from './roles.repo.js'
import { findUserById, rolesOfUser } from './users.repo.js'

/** The roles of a user, each with its permission names; 404 for an unknown user. */
export async function getUserRoles(db: Db, userId: string): Promise<RoleWithPermissions[]> {
  if (!(await findUserById(db, userId))) throw new AppError('not_found')
  return withPermissions(db, await rolesOfUser(db, userId))
}
