import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { BUILT_IN_PERMISSION_NAMES } from '../../src/domain/staff/builtins.js'
import { ensureBuiltins } from '../../src/domain/staff/ensure-builtins.js'
import { staffPermissions } from '../../src/domain/staff/permissions.table.js'
import { staffRolePermissions, staffRoles } from '../../src/domain/staff/roles.table.js'
import { staffUsers } from '../../src/domain/staff/users.table.js'
import { buildTestApp } from '../build-app.js'
import { resetDatabase, testDatabase } from '../support/database.js'

const ADMIN_ENV = { ADMIN_EMAIL: 'Root@Example.test', ADMIN_PASSWORD: 'bootstrap-password-1' }

let apps: FastifyInstance[] = []
beforeEach(async () => {
  await resetDatabase(await testDatabase())
})
afterEach(async () => {
  await Promise.all(apps.map((app) => app.close()))
  apps = []
})
const start = async (env: Record<string, string> = {}) => {
  const app = await buildTestApp({ env })
  apps.push(app)
  return app
}

async function adminRolePermissionNames(app: FastifyInstance) {
  const rows = await app.db
    .select({ name: staffPermissions.name })
    .from(staffRolePermissions)
    .innerJoin(staffRoles, eq(staffRoles.id, staffRolePermissions.roleId))
    .innerJoin(staffPermissions, eq(staffPermissions.id, staffRolePermissions.permissionId))
    .where(eq(staffRoles.name, 'admin'))
  return rows.map((r) => r.name).sort()
}

describe('built-in permissions and the admin role', () => {
  it('are restored on start into an emptied database', async () => {
    const app = await start()
    const permissions = await app.db.select().from(staffPermissions)
    expect(permissions.map((p) => p.name).sort()).toEqual([...BUILT_IN_PERMISSION_NAMES].sort())
    expect(permissions.every((p) => p.builtIn && p.description.length > 0)).toBe(true)
    expect(BUILT_IN_PERMISSION_NAMES).toHaveLength(14)
    expect(await adminRolePermissionNames(app)).toEqual([...BUILT_IN_PERMISSION_NAMES].sort())
  })

  it('are restored idempotently: admin gets back every permission, custom ones included', async () => {
    const app = await start()
    const [custom] = await app.db.insert(staffPermissions).values({ name: 'reports.export' }).returning()
    const [usersRead] = await app.db.select().from(staffPermissions).where(eq(staffPermissions.name, 'iam.users.read'))
    await app.db.delete(staffRolePermissions).where(eq(staffRolePermissions.permissionId, usersRead!.id))
    await ensureBuiltins(app.db)
    await ensureBuiltins(app.db)
    expect(await adminRolePermissionNames(app)).toEqual([...BUILT_IN_PERMISSION_NAMES, 'reports.export'].sort())
    expect(await app.db.select().from(staffPermissions)).toHaveLength(15)
    expect(await app.db.select().from(staffRoles)).toHaveLength(1)
    const [kept] = await app.db.select().from(staffPermissions).where(eq(staffPermissions.id, custom!.id))
    expect(kept!.builtIn).toBe(false)
  })
})

describe('bootstrap admin', () => {
  it('is created once with role admin when no user exists, even by two processes starting at once', async () => {
    const [first] = await Promise.all([start(ADMIN_ENV), start(ADMIN_ENV)])
    const users = await first!.db.select().from(staffUsers)
    expect(users).toHaveLength(1)
    expect(users[0]!.email).toBe('Root@Example.test')

    const login = await first!.inject({
      method: 'POST',
      url: '/iam/v1/auth/login',
      payload: { username: 'root@example.test', password: 'bootstrap-password-1' },
    })
    expect(login.statusCode).toBe(200)
    expect(login.json().user.roles).toEqual(['admin'])

    const audit = await first!.db.select().from(auditLog).where(eq(auditLog.action, 'iam.user.created'))
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({ actorType: 'system', targetId: users[0]!.id, data: { bootstrap: true, roles: ['admin'] } })
    expect(JSON.stringify(audit)).not.toContain('bootstrap-password-1')
  })

  it('is not created again on a later start, nor when another user exists', async () => {
    await start(ADMIN_ENV)
    const again = await start({ ADMIN_EMAIL: 'second@example.test', ADMIN_PASSWORD: 'another-password' })
    const users = await again.db.select().from(staffUsers)
    expect(users.map((u) => u.email)).toEqual(['Root@Example.test'])
  })

  it('is not created without ADMIN_EMAIL and ADMIN_PASSWORD', async () => {
    const app = await start()
    expect(await app.db.select().from(staffUsers)).toHaveLength(0)
  })
})
