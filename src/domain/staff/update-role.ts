import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { assertBuiltInRoleKeepsAll, assertMayConfer, resolvePermissions } from './grants.js'
import {
  addRolePermissions,
  findRoleById,
  isRoleNameTaken,
  permissionsOfRole,
  removeRolePermissions,
  updateRoleRow,
  withPermissions,
  type RoleWithPermissions,
} from './roles.repo.js'
import { added, removed } from './staff-rules.js'

export type UpdateRoleOptions = {
  name?: string | undefined
  description?: string | undefined
  /** Replaces the role's permissions. */
  permissions?: string[] | undefined
}

/**
 * Changes a role's name, description or permissions (those given). The built-in role keeps
 * its name and every permission (403); adding a permission the caller lacks: 403;
 * unknown permission names: 400; a name in use: 409 `already_exists`.
 */
export const updateRole = (db: Db, actor: StaffActor, id: string, input: UpdateRoleOptions): Promise<RoleWithPermissions> =>
  db.transaction(async (tx) => {
    const existing = await findRoleById(tx, id)
    if (!existing) throw new AppError('not_found')
    const renamed = input.name !== undefined && input.name !== existing.name
    if (renamed && existing.builtIn) throw new AppError('forbidden', { message: 'Built-in roles cannot be renamed' })

    let permissionsAdded: string[] = []
    let permissionsRemoved: string[] = []
    if (input.permissions) {
      const wanted = await resolvePermissions(tx, [...new Set(input.permissions)])
      const current = await permissionsOfRole(tx, id)
      permissionsAdded = added(
        current.map((p) => p.name),
        wanted.map((p) => p.name),
      ).sort()
      permissionsRemoved = removed(
        current.map((p) => p.name),
        wanted.map((p) => p.name),
      ).sort()
      assertBuiltInRoleKeepsAll(existing, permissionsRemoved)
      assertMayConfer(actor, permissionsAdded)
      await removeRolePermissions(
        tx,
        id,
        current.filter((p) => permissionsRemoved.includes(p.name)).map((p) => p.id),
      )
      await addRolePermissions(
        tx,
        id,
        wanted.filter((p) => permissionsAdded.includes(p.name)).map((p) => p.id),
      )
    }
    if (renamed && (await isRoleNameTaken(tx, input.name!, id))) throw new AppError('already_exists')
    const role = await updateRoleRow(tx, id, { name: input.name, description: input.description }).catch((error: unknown) => {
      throw isUniqueViolation(error) ? new AppError('already_exists') : error
    })
    await recordAudit(tx, auditActorOf(actor), {
      action: 'iam.role.updated',
      target: { type: 'staff_role', id },
      data: {
        ...(renamed ? { name: { from: existing.name, to: input.name } } : { name: existing.name }),
        changed: Object.keys(input),
        ...(input.permissions ? { permissions_added: permissionsAdded, permissions_removed: permissionsRemoved } : {}),
      },
    })
    const [updated] = await withPermissions(tx, [role!])
    return updated!
  })
