import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { assertMayConfer } from './grants.js'
import { findPermissionById } from './permissions.repo.js'
import { addRolePermissions, findRoleById, touchRole } from './roles.repo.js'

/** Adds a permission to a role. Idempotent; 404 for an unknown role or permission. */
export const addRolePermission = (db: Db, actor: StaffActor, roleId: string, permissionId: string): Promise<void> =>
  db.transaction(async (tx) => {
    const role = await findRoleById(tx, roleId)
    if (!role) throw new AppError('not_found')
    const permission = await findPermissionById(tx, permissionId)
    if (!permission) throw new AppError('not_found')
    assertMayConfer(actor, [permission.name])
    if ((await addRolePermissions(tx, roleId, [permission.id])) > 0) {
      await touchRole(tx, roleId)
      await recordAudit(tx, auditActorOf(actor), {
        action: 'iam.role.permission_added',
        target: { type: 'staff_role', id: roleId },
        data: { role: role.name, permission: permission.name, permission_id: permission.id },
      })
    }
  })
