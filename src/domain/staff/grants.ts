import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { StaffActor } from './actor.js'
import { ADMIN_ROLE } from './builtins.js'
import { findPermissionsByNames, type PermissionRow } from './permissions.repo.js'
import { findRolesByNames, lockRoleByName, type RoleRow } from './roles.repo.js'
import { notHeld, unknownNameDetails, unknownNames } from './staff-rules.js'
import { countRoleHoldersExcept, effectivePermissionNames, rolesOfUser } from './users.repo.js'

/**
 * Checks shared by the services that grant and revoke. Each throws the AppError the
 * contract prescribes; none opens a transaction of its own.
 */

/** The roles of the given names; any unknown name is a 400 naming it (`roles.2`). */
export async function resolveRoles(db: Db, names: readonly string[], field = 'roles'): Promise<RoleRow[]> {
  const rows = await findRolesByNames(db, names)
  const unknown = unknownNames(
    names,
    rows.map((r) => r.name),
  )
  if (unknown.length > 0) {
    throw new AppError('validation_error', { details: unknownNameDetails(field, names, unknown, 'role') })
  }
  return rows
}

/** The permissions of the given names; any unknown name is a 400 naming it (`permissions.0`). */
export async function resolvePermissions(db: Db, names: readonly string[], field = 'permissions'): Promise<PermissionRow[]> {
  const rows = await findPermissionsByNames(db, names)
  const unknown = unknownNames(
    names,
    rows.map((r) => r.name),
  )
  if (unknown.length > 0) {
    throw new AppError('validation_error', { details: unknownNameDetails(field, names, unknown, 'permission') })
  }
  return rows
}

/** A caller may confer only permissions it holds itself: no privilege escalation. */
export function assertMayConfer(actor: StaffActor, permissionNames: Iterable<string>): void {
  const missing = notHeld(actor.permissions, permissionNames)
  if (missing.length > 0) {
    throw new AppError('forbidden', { message: `You cannot grant permissions you do not hold: ${missing.join(', ')}` })
  }
}

/** A caller may change a user only if it holds every permission that user holds. */
export async function assertMayManageUser(db: Db, actor: StaffActor, userId: string): Promise<void> {
  if (notHeld(actor.permissions, await effectivePermissionNames(db, userId)).length > 0) {
    throw new AppError('forbidden', { message: 'You cannot change a user who holds permissions you do not hold' })
  }
}

/**
 * Refuses a change that would leave no user with the `admin` role. The admin role row is
 * locked first, so two admins removing each other at once cannot both succeed.
 */
export async function assertAdminRemains(db: Db, userId: string): Promise<void> {
  const admin = await lockRoleByName(db, ADMIN_ROLE.name)
  if (!admin) return
  const holds = (await rolesOfUser(db, userId)).some((role) => role.id === admin.id)
  if (holds && (await countRoleHoldersExcept(db, admin.id, userId)) === 0) {
    throw new AppError('forbidden', { message: 'At least one user must keep the admin role' })
  }
}

/** The built-in admin role holds every permission: none can be taken from it. */
export function assertBuiltInRoleKeepsAll(role: RoleRow, removedPermissionNames: readonly string[]): void {
  if (role.builtIn && removedPermissionNames.length > 0) {
    throw new AppError('forbidden', { message: `The built-in role "${role.name}" holds every permission` })
  }
}
