import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { assertAdminRemains, assertMayManageUser } from './grants.js'
import { deleteUserRow, findUserById } from './users.repo.js'

/**
 * Deletes a user with its grants and sessions (its tokens stop working at once). Nobody
 * deletes themselves, the last admin stays, and the caller must hold every permission the
 * user holds: 403 otherwise.
 */
export const deleteUser = (db: Db, actor: StaffActor, id: string): Promise<void> =>
  db.transaction(async (tx) => {
    const user = await findUserById(tx, id)
    if (!user) throw new AppError('not_found')
    if (user.id === actor.id) throw new AppError('forbidden', { message: 'You cannot delete yourself' })
    await assertMayManageUser(tx, actor, id)
    await assertAdminRemains(tx, id)
    await deleteUserRow(tx, id)
    await recordAudit(tx, auditActorOf(actor), {
      action: 'iam.user.deleted',
      target: { type: 'staff_user', id },
      data: { email: user.email, name: user.name },
    })
  })
