import { sql } from 'drizzle-orm'
import { hashPassword } from '../../platform/auth/passwords.js'
import type { Db } from '../../platform/db/database.js'
import { recordAudit } from '../audit/record-audit.js'
import { ADMIN_ROLE } from './builtins.js'
import { findRoleByName } from './roles.repo.js'
import { addUserRoles, hasAnyUser, insertUser } from './users.repo.js'

export type BootstrapAdminOptions = { name?: string; email: string; password: string }

// Any constant works: it only has to be the same for every process of this application.
const BOOTSTRAP_LOCK_ID = 7_344_022

/**
 * Creates the first user, with role `admin`, when no user exists yet (docs/operations.md).
 * Safe when several processes start at once: the check runs again under an advisory lock.
 * Answers whether it created the user. Needs the built-ins (`ensureBuiltins`) first.
 */
export async function bootstrapAdmin(db: Db, admin: BootstrapAdminOptions | undefined): Promise<boolean> {
  if (!admin || (await hasAnyUser(db))) return false
  // argon2 runs before the transaction, never inside it.
  const passwordHash = await hashPassword(admin.password)
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK_ID})`)
    if (await hasAnyUser(tx)) return false
    const role = await findRoleByName(tx, ADMIN_ROLE.name)
    if (!role) throw new Error('bootstrapAdmin needs the built-in roles: call ensureBuiltins first')
    const user = await insertUser(tx, { name: admin.name ?? 'Administrator', email: admin.email, passwordHash })
    await addUserRoles(tx, user.id, [role.id])
    await recordAudit(
      tx,
      { type: 'system' },
      { action: 'iam.user.created', target: { type: 'staff_user', id: user.id }, data: { email: user.email, roles: [role.name], bootstrap: true } },
    )
    return true
  })
}
