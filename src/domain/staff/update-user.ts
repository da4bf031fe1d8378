import { hashPassword } from '../../platform/auth/passwords.js'
import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { ADMIN_ROLE } from './builtins.js'
import { assertAdminRemains, assertMayConfer, assertMayManageUser, resolveRoles } from './grants.js'
import { permissionNamesOfRoles } from './roles.repo.js'
import { revokeUserSessions } from './sessions.repo.js'
import { added, removed } from './staff-rules.js'
import { addUserRoles, findUserById, isEmailTaken, removeUserRoles, rolesOfUser, updateUserRow, withRoles, type StaffUser } from './users.repo.js'

export type UpdateUserOptions = {
  name?: string | undefined
  email?: string | undefined
  password?: string | undefined
  /** Replaces the user's roles. */
  roles?: string[] | undefined
}

/**
 * Changes a user's name, email, password or roles (those given). The caller must hold every
 * permission the user holds and every permission a newly given role grants (403 otherwise);
 * the last admin keeps the admin role (403). A new password revokes the user's sessions.
 */
export async function updateUser(db: Db, actor: StaffActor, id: string, input: UpdateUserOptions): Promise<StaffUser> {
  // argon2 runs before the transaction, never inside it.
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password)
  return db.transaction(async (tx) => {
    const existing = await findUserById(tx, id)
    if (!existing) throw new AppError('not_found')
    await assertMayManageUser(tx, actor, id)

    let rolesAdded: string[] = []
    let rolesRemoved: string[] = []
    if (input.roles) {
      const wanted = await resolveRoles(tx, [...new Set(input.roles)])
      const current = await rolesOfUser(tx, id)
      const toAdd = added(
        current.map((r) => r.id),
        wanted.map((r) => r.id),
      )
      const toRemove = removed(
        current.map((r) => r.id),
        wanted.map((r) => r.id),
      )
      assertMayConfer(actor, await permissionNamesOfRoles(tx, toAdd))
      const byId = new Map([...current, ...wanted].map((r) => [r.id, r.name]))
      rolesAdded = toAdd.map((roleId) => byId.get(roleId)!).sort()
      rolesRemoved = toRemove.map((roleId) => byId.get(roleId)!).sort()
      if (rolesRemoved.includes(ADMIN_ROLE.name)) await assertAdminRemains(tx, id)
      await removeUserRoles(tx, id, toRemove)
      await addUserRoles(tx, id, toAdd)
    }

    if (input.email !== undefined && (await isEmailTaken(tx, input.email, id))) throw new AppError('email_taken')
    const user = await updateUserRow(tx, id, { name: input.name, email: input.email, passwordHash }).catch((error: unknown) => {
      throw isUniqueViolation(error, 'staff_users_email_key') ? new AppError('email_taken') : error
    })
    if (passwordHash) await revokeUserSessions(tx, id, 'password_changed')

    const changed = (['name', 'email', 'password', 'roles'] as const).filter((field) => input[field] !== undefined)
    await recordAudit(tx, auditActorOf(actor), {
      action: 'iam.user.updated',
      target: { type: 'staff_user', id },
      data: {
        changed,
        ...(input.email !== undefined && input.email !== existing.email ? { email: { from: existing.email, to: input.email } } : {}),
        ...(input.roles ? { roles_added: rolesAdded, roles_removed: rolesRemoved } : {}),
      },
    })
    const [updated] = await withRoles(tx, [user!])
    return updated!
  })
}
