import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { assertMayConfer, assertMayManageUser, resolvePermissions } from './grants.js'
import { findPermissionsByIds } from './permissions.repo.js'
import { added, removed } from './staff-rules.js'
import {
  addUserPermissions,
  directPermissionIdsOfUser,
  effectivePermissionsOfUser,
  findUserById,
  removeUserPermissions,
  type EffectivePermission,
} from './users.repo.js'

/**
 * Replaces the permissions granted to a user directly (those of its roles stay) and answers
 * its effective permissions. Unknown names: 400; conferring a permission the caller lacks,
 * or changing a user holding one: 403.
 */
export const syncUserPermissions = (db: Db, actor: StaffActor, userId: string, names: string[]): Promise<EffectivePermission[]> =>
  db.transaction(async (tx) => {
    if (!(await findUserById(tx, userId))) throw new AppError('not_found')
    const wanted = await resolvePermissions(tx, [...new Set(names)])
    await assertMayManageUser(tx, actor, userId)
    const current = await directPermissionIdsOfUser(tx, userId)
    const toAdd = added(
      current,
      wanted.map((p) => p.id),
    )
    const toRemove = removed(
      current,
      wanted.map((p) => p.id),
    )
    const addedNames = wanted.filter((p) => toAdd.includes(p.id)).map((p) => p.name)
    assertMayConfer(actor, addedNames)
    const removedNames = (await findPermissionsByIds(tx, toRemove)).map((p) => p.name)
    await removeUserPermissions(tx, userId, toRemove)
    await addUserPermissions(tx, userId, toAdd)
    if (toAdd.length > 0 || toRemove.length > 0) {
      await recordAudit(tx, auditActorOf(actor), {
        action: 'iam.user.permissions_synced',
        target: { type: 'staff_user', id: userId },
        data: { added: addedNames.sort(), removed: removedNames.sort() },
      })
    }
    return effectivePermissionsOfUser(tx, userId)
  })
