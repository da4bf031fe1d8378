import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { assertMayManageUser } from './grants.js'
import { findPermissionById } from './permissions.repo.js'
import { findUserById, removeUserPermissions } from './users.repo.js'

/**
 * Withdraws a permission granted to a user directly (one its roles grant stays). Idempotent;
 * 404 for an unknown user or permission.
 */
export const removeUserPermission = (db: Db, actor: StaffActor, userId: string, permissionId: string): Promise<void> =>
  db.transaction(async (tx) => {
    if (!(await findUserById(tx, userId))) throw new AppError('not_found')
    const permission = await findPermissionById(tx, permissionId)
    if (!permission) throw new AppError('not_found')
    await assertMayManageUser(tx, actor, userId)
    if ((await removeUserPermissions(tx, userId, [permission.id])) > 0) {
      await recordAudit(tx, auditActorOf(actor), {
        action: 'iam.user.permission_removed',
        target: { type: 'staff_user', id: userId },
        data: { permission: permission.name, permission_id: permission.id },
      })
    }
  })
