import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { assertMayConfer, assertMayManageUser } from './grants.js'
import { findPermissionById } from './permissions.repo.js'
import { addUserPermissions, findUserById } from './users.repo.js'

/** Grants a permission to a user directly. Idempotent; 404 for an unknown user or permission. */
export const addUserPermission = (db: Db, actor: StaffActor, userId: string, permissionId: string): Promise<void> =>
  db.transaction(async (tx) => {
    if (!(await findUserById(tx, userId))) throw new AppError('not_found')
    const permission = await findPermissionById(tx, permissionId)
    if (!permission) throw new AppError('not_found')
    await assertMayManageUser(tx, actor, userId)
    assertMayConfer(actor, [permission.name])
    if ((await addUserPermissions(tx, userId, [permission.id])) > 0) {
      await recordAudit(tx, auditActorOf(actor), {
        action: 'iam.user.permission_added',
        target: { type: 'staff_user', id: userId },
        data: { permission: permission.name, permission_id: permission.id },
      })
    }
  })
