import { hashPassword } from '../../platform/auth/passwords.js'
import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { assertMayConfer, resolveRoles } from './grants.js'
import { permissionNamesOfRoles } from './roles.repo.js'
import { addUserRoles, insertUser, isEmailTaken, withRoles, type StaffUser } from './users.repo.js'

export type CreateUserOptions = { name: string; email: string; password: string; roles?: string[] | undefined }

/**
 * Creates a member of staff. Unknown role names: 400 naming them; a role granting a
 * permission the caller lacks: 403; an email in use (any case): 409 `email_taken`.
 */
export async function createUser(db: Db, actor: StaffActor, input: CreateUserOptions): Promise<StaffUser> {
  const roleNames = [...new Set(input.roles ?? [])]
  // argon2 runs before the transaction, never inside it.
  const passwordHash = await hashPassword(input.password)
  return db.transaction(async (tx) => {
    const roles = await resolveRoles(tx, roleNames)
    assertMayConfer(
      actor,
      await permissionNamesOfRoles(
        tx,
        roles.map((r) => r.id),
      ),
    )
    if (await isEmailTaken(tx, input.email)) throw new AppError('email_taken')
    const user = await insertUser(tx, { name: input.name, email: input.email, passwordHash }).catch((error: unknown) => {
      throw isUniqueViolation(error, 'staff_users_email_key') ? new AppError('email_taken') : error
    })
    await addUserRoles(
      tx,
      user.id,
      roles.map((r) => r.id),
    )
    await recordAudit(tx, auditActorOf(actor), {
      action: 'iam.user.created',
      target: { type: 'staff_user', id: user.id },
      data: { email: user.email, roles: roleNames },
    })
    const [created] = await withRoles(tx, [user])
    return created!
  })
}
