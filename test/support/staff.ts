import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { ADMIN_ROLE } from '../../src/domain/staff/builtins.js'
import { resolvePermissions, resolveRoles } from '../../src/domain/staff/grants.js'
import { startStaffSession } from '../../src/domain/staff/start-staff-session.js'
import { addUserPermissions, addUserRoles, insertUser } from '../../src/domain/staff/users.repo.js'
import { hashPassword } from '../../src/platform/auth/passwords.js'
import { signStaffAccessToken } from '../../src/iam/staff-auth.js'

export type CreateStaffOptions = {
  /** Permission names granted directly; each must exist (the built-ins always do). */
  permissions?: string[]
  /** Role names; each must exist (`admin` always does). */
  roles?: string[]
  name?: string
  email?: string
  password?: string
}

export type TestStaff = {
  user: { id: string; name: string; email: string; password: string; roles: string[] }
  accessToken: string
  refreshToken: string
  /** Headers for `app.inject`: `{ headers: staff.auth }`. */
  auth: { authorization: string }
}

/**
 * A member of staff with the given permissions and roles, signed in: its tokens come from
 * the same session service and signer as `POST /iam/v1/auth/login`, without going through
 * the login route (and so without its rate limits).
 */
export async function createStaff(app: FastifyInstance, options: CreateStaffOptions = {}): Promise<TestStaff> {
  const suffix = randomBytes(6).toString('hex')
  const name = options.name ?? `Staff ${suffix}`
  const email = options.email ?? `staff-${suffix}@example.test`
  const password = options.password ?? `pw-${randomBytes(12).toString('base64url')}`
  const passwordHash = await hashPassword(password)
  const userId = await app.db.transaction(async (tx) => {
    const roles = await resolveRoles(tx, options.roles ?? [])
    const permissions = await resolvePermissions(tx, options.permissions ?? [])
    const user = await insertUser(tx, { name, email, passwordHash })
    await addUserRoles(
      tx,
      user.id,
      roles.map((r) => r.id),
    )
    await addUserPermissions(
      tx,
      user.id,
      permissions.map((p) => p.id),
    )
    return user.id
  })
  const grant = await startStaffSession(app.db, { userId, tokenHmac: app.secrets.tokenHmac, refreshTtlSeconds: app.config.ttl.iamRefresh })
  const access = signStaffAccessToken(app, { userId, sessionId: grant.sessionId })
  return {
    user: { id: userId, name, email, password, roles: grant.user.roles },
    accessToken: access.token,
    refreshToken: grant.refreshToken,
    auth: { authorization: `Bearer ${access.token}` },
  }
}

/** A signed-in member of staff with the built-in `admin` role. */
export const asAdmin = (app: FastifyInstance, options: Omit<CreateStaffOptions, 'roles'> = {}) => createStaff(app, { ...options, roles: [ADMIN_ROLE.name] })
