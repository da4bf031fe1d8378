import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { assertBuiltInRoleKeepsAll } from './grants.js'
import { findPermissionById } from './permissions.repo.js'
import { findRoleById, removeRolePermissions, touchRole } from './roles.repo.js'

/**
 * Takes a permission from a role. Idempotent; 404 for an unknown role or permission;
 * the built-in role keeps every permission (403).
 */
export const removeRolePermission = (db: Db, actor: StaffActor, roleId: string, permissionId: string): Promise<void> =>
  db.transaction(async (tx) => {
    const role = await findRoleById(tx, roleId)
    if (!role) throw new AppError('not_found')
    const permission = await findPermissionById(tx, permissionId)
    if (!permission) throw new AppError('not_found')
    assertBuiltInRoleKeepsAll(role, [permission.name])
    if ((await removeRolePermissions(tx, roleId, [permission.id])) > 0) {
      await touchRole(tx, roleId)
      await recordAudit(tx, auditActorOf(actor), {
        action: 'iam.role.permission_removed',
        target: { type: 'staff_role', id: roleId },
        data: { role: role.name, permission: permission.name, permission_id: permission.id },
      })
    }
  })
