import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { assertMayConfer, resolvePermissions } from './grants.js'
import { addRolePermissions, insertRole, isRoleNameTaken, withPermissions, type RoleWithPermissions } from './roles.repo.js'

export type CreateRoleOptions = { name: string; description?: string | undefined; permissions?: string[] | undefined }

/**
 * Creates a role, with permissions if given. Unknown permission names: 400; a permission
 * the caller lacks: 403; a name in use: 409 `already_exists`.
 */
export const createRole = (db: Db, actor: StaffActor, input: CreateRoleOptions): Promise<RoleWithPermissions> =>
  db.transaction(async (tx) => {
    const permissions = await resolvePermissions(tx, [...new Set(input.permissions ?? [])])
    assertMayConfer(
      actor,
      permissions.map((p) => p.name),
    )
    if (await isRoleNameTaken(tx, input.name)) throw new AppError('already_exists')
    const role = await insertRole(tx, { name: input.name, description: input.description ?? '' }).catch((error: unknown) => {
      throw isUniqueViolation(error) ? new AppError('already_exists') : error
    })
    await addRolePermissions(
      tx,
      role.id,
      permissions.map((p) => p.id),
    )
    await recordAudit(tx, auditActorOf(actor), {
      action: 'iam.role.created',
      target: { type: 'staff_role', id: role.id },
      data: { name: role.name, permissions: permissions.map((p) => p.name).sort() },
    })
    const [created] = await withPermissions(tx, [role])
    return created!
  })
