import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { effectivePermissionsOfUser, findUserById, type EffectivePermission } from './users.repo.js'

/** A user's effective permissions, each saying whether it is direct and which roles grant it. */
export async function getUserPermissions(db: Db, userId: string): Promise<EffectivePermission[]> {
  if (!(await findUserById(db, userId))) throw new AppError('not_found')
  return effectivePermissionsOfUser(db, userId)
}
