import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { assertBuiltInRoleKeepsAll, assertMayConfer, resolvePermissions } from './grants.js'
import type { PermissionRow } from './permissions.repo.js'
import { addRolePermissions, findRoleById, permissionsOfRole, removeRolePermissions, touchRole } from './roles.repo.js'
import { added, removed } from './staff-rules.js'

/**
 * Replaces a role's permissions and answers them. Unknown names: 400; adding a permission
 * the caller lacks, or taking any permission from the built-in role: 403.
 */
export const syncRolePermissions = (db: Db, actor: StaffActor, roleId: string, names: string[]): Promise<PermissionRow[]> =>
  db.transaction(async (tx) => {
    const role = await findRoleById(tx, roleId)
    if (!role) throw new AppError('not_found')
    const wanted = await resolvePermissions(tx, [...new Set(names)])
    const current = await permissionsOfRole(tx, roleId)
    const toAdd = added(
      current.map((p) => p.name),
      wanted.map((p) => p.name),
    ).sort()
    const toRemove = removed(
      current.map((p) => p.name),
      wanted.map((p) => p.name),
    ).sort()
    assertBuiltInRoleKeepsAll(role, toRemove)
    assertMayConfer(actor, toAdd)
    await removeRolePermissions(
      tx,
      roleId,
      current.filter((p) => toRemove.includes(p.name)).map((p) => p.id),
    )
    await addRolePermissions(
      tx,
      roleId,
      wanted.filter((p) => toAdd.includes(p.name)).map((p) => p.id),
    )
    if (toAdd.length > 0 || toRemove.length > 0) {
      await touchRole(tx, roleId)
      await recordAudit(tx, auditActorOf(actor), {
        action: 'iam.role.permissions_synced',
        target: { type: 'staff_role', id: roleId },
        data: { role: role.name, added: toAdd, removed: toRemove },
      })
    }
    return permissionsOfRole(tx, roleId)
  })
