import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findUserById, withRoles, type StaffUser } from './users.repo.js'

/** One user with its role names, or 404. */
export async function getUser(db: Db, id: string): Promise<StaffUser> {
  const user = await findUserById(db, id)
  if (!user) throw new AppError('not_found')
  const [withRoleNames] = await withRoles(db, [user])
  return withRoleNames!
}
