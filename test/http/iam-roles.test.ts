import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { BUILT_IN_PERMISSION_NAMES } from '../../src/domain/staff/builtins.js'
import { useTestApp } from '../build-app.js'
import { client } from '../support/inject.js'
import { asAdmin, createStaff, type TestStaff } from '../support/staff.js'

const ctx = useTestApp()
const api = client(() => ctx.app)

let admin: TestStaff
let adminRoleId: string
beforeAll(async () => {
  admin = await asAdmin(ctx.app)
  adminRoleId = (await api('POST', '/iam/v1/roles/search', admin.auth, { q: 'admin' })).json().data.find((r: { name: string }) => r.name === 'admin').id
})

const uniqueName = (prefix = 'role') => `${prefix}-${randomUUID().slice(0, 8)}`
const create = (body: Record<string, unknown>, auth = admin.auth) => api('POST', '/iam/v1/roles', auth, body)
const auditOf = (action: string, targetId: string) =>
  ctx.app.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.targetId, targetId)))
const permissionIdOf = async (name: string) =>
  (await api('POST', '/iam/v1/permissions/search', admin.auth, { q: name })).json().data.find((p: { name: string }) => p.name === name).id as string

describe('POST /iam/v1/roles', () => {
  it('creates a role with permissions and records it', async () => {
    const name = uniqueName()
    const res = await create({ name, description: 'Support desk', permissions: ['adm.orders.read', 'adm.sellers.read'] })
    expect(res.statusCode).toBe(201)
    expect(res.json()).toEqual({
      id: expect.any(String),
      name,
      description: 'Support desk',
      permissions: ['adm.orders.read', 'adm.sellers.read'],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const [audit] = await auditOf('iam.role.created', res.json().id)
    expect(audit!.data).toEqual({ name, permissions: ['adm.orders.read', 'adm.sellers.read'] })
    expect((await create({ name: uniqueName() })).json()).toMatchObject({ description: '', permissions: [] })
  })

  it('refuses a name in use, unknown permissions and invalid bodies', async () => {
    const name = uniqueName()
    await create({ name })
    const again = await create({ name })
    expect(again.statusCode).toBe(409)
    expect(again.json().code).toBe('already_exists')
    expect((await create({ name: 'admin' })).json().code).toBe('already_exists')

    const unknown = await create({ name: uniqueName(), permissions: ['adm.orders.read', 'adm.nothing'] })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().details).toEqual([{ path: 'permissions.1', message: expect.stringContaining('adm.nothing') }])

    for (const body of [{}, { name: 'Bad Name' }, { name: uniqueName(), permissions: 'adm.orders.read' }, { name: uniqueName(), color: 'red' }]) {
      expect((await create(body)).statusCode, JSON.stringify(body)).toBe(400)
    }
  })

  it('refuses permissions the caller does not hold, and callers without iam.roles.write', async () => {
    const writer = await createStaff(ctx.app, { permissions: ['iam.roles.write', 'adm.orders.read'] })
    const res = await create({ name: uniqueName(), permissions: ['adm.orders.read', 'adm.orders.write'] }, writer.auth)
    expect(res.statusCode).toBe(403)
    expect(res.json().message).toContain('adm.orders.write')
    expect((await create({ name: uniqueName(), permissions: ['adm.orders.read'] }, writer.auth)).statusCode).toBe(201)
    const reader = await createStaff(ctx.app, { permissions: ['iam.roles.read'] })
    expect((await create({ name: uniqueName() }, reader.auth)).statusCode).toBe(403)
    expect((await api('POST', '/iam/v1/roles', undefined, { name: uniqueName() })).statusCode).toBe(401)
  })
})

describe('GET /iam/v1/roles and POST /iam/v1/roles/search', () => {
  it('lists roles with their permissions, paginated, admin holding every permission', async () => {
    const res = await api('GET', '/iam/v1/roles?limit=100', admin.auth)
    expect(res.statusCode).toBe(200)
    const adminRole = res.json().data.find((r: { name: string }) => r.name === 'admin')
    expect(adminRole.permissions).toEqual(expect.arrayContaining([...BUILT_IN_PERMISSION_NAMES]))
    expect(res.json().meta).toMatchObject({ page: 1, limit: 100, count: res.json().data.length })
    const names = res.json().data.map((r: { name: string }) => r.name)
    expect(names).toEqual([...names].sort())
  })

  it('searches name and description and sorts', async () => {
    const tag = randomUUID().slice(0, 8)
    await create({ name: `b-${tag}`, description: 'first' })
    await create({ name: `a-${tag}`, description: 'second' })
    await create({ name: `other-${randomUUID().slice(0, 8)}`, description: `About ${tag.toUpperCase()}` })
    const res = await api('POST', '/iam/v1/roles/search', admin.auth, { q: tag })
    expect(res.json().data.map((r: { name: string }) => r.name)).toEqual([`a-${tag}`, `b-${tag}`, expect.stringMatching(/^other-/)])
    const newest = await api('POST', '/iam/v1/roles/search', admin.auth, { q: tag, sort: '-created_at', limit: 1, page: 2 })
    expect(newest.json()).toMatchObject({ data: [{ name: `a-${tag}` }], meta: { count: 1, limit: 1, page: 2, total: 3 } })
  })

  it('needs iam.roles.read', async () => {
    const nobody = await createStaff(ctx.app)
    expect((await api('GET', '/iam/v1/roles', nobody.auth)).statusCode).toBe(403)
    expect((await api('POST', '/iam/v1/roles/search', nobody.auth, {})).statusCode).toBe(403)
    expect((await api('GET', `/iam/v1/roles/${adminRoleId}`, nobody.auth)).statusCode).toBe(403)
    expect((await api('GET', `/iam/v1/roles/${adminRoleId}/permissions`, nobody.auth)).statusCode).toBe(403)
  })
})

describe('GET, PUT and DELETE /iam/v1/roles/{id}', () => {
  it('reads one; 404 when unknown, 400 when malformed', async () => {
    const role = (await create({ name: uniqueName(), permissions: ['adm.catalog.read'] })).json()
    expect((await api('GET', `/iam/v1/roles/${role.id}`, admin.auth)).json()).toEqual(role)
    expect((await api('GET', `/iam/v1/roles/${randomUUID()}`, admin.auth)).statusCode).toBe(404)
    expect((await api('GET', '/iam/v1/roles/x', admin.auth)).statusCode).toBe(400)
  })

  it('updates name, description and permissions, and records the difference', async () => {
    const role = (await create({ name: uniqueName(), permissions: ['adm.catalog.read'] })).json()
    const name = uniqueName('renamed')
    const res = await api('PUT', `/iam/v1/roles/${role.id}`, admin.auth, { name, description: 'Changed', permissions: ['adm.catalog.write'] })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ id: role.id, name, description: 'Changed', permissions: ['adm.catalog.write'] })
    const [audit] = await auditOf('iam.role.updated', role.id)
    expect(audit!.data).toMatchObject({
      name: { from: role.name, to: name },
      permissions_added: ['adm.catalog.write'],
      permissions_removed: ['adm.catalog.read'],
    })
    expect((await api('PUT', `/iam/v1/roles/${role.id}`, admin.auth, { name: 'admin' })).json().code).toBe('already_exists')
    expect((await api('PUT', `/iam/v1/roles/${role.id}`, admin.auth, {})).statusCode).toBe(400)
    expect((await api('PUT', `/iam/v1/roles/${role.id}`, admin.auth, { permissions: ['no.such'] })).statusCode).toBe(400)
    expect((await api('PUT', `/iam/v1/roles/${randomUUID()}`, admin.auth, { description: 'x' })).statusCode).toBe(404)
  })

  it('protects the admin role: no renaming, no deleting, no permission taken away', async () => {
    const rename = await api('PUT', `/iam/v1/roles/${adminRoleId}`, admin.auth, { name: 'superuser' })
    expect(rename.statusCode).toBe(403)
    expect((await api('DELETE', `/iam/v1/roles/${adminRoleId}`, admin.auth)).statusCode).toBe(403)
    expect((await api('PUT', `/iam/v1/roles/${adminRoleId}`, admin.auth, { permissions: ['iam.users.read'] })).statusCode).toBe(403)
    expect((await api('POST', `/iam/v1/roles/${adminRoleId}/permissions`, admin.auth, { permissions: [] })).statusCode).toBe(403)
    const id = await permissionIdOf('adm.orders.write')
    expect((await api('DELETE', `/iam/v1/roles/${adminRoleId}/permissions/${id}`, admin.auth)).statusCode).toBe(403)
    const described = await api('PUT', `/iam/v1/roles/${adminRoleId}`, admin.auth, { description: 'Everything' })
    expect(described.statusCode).toBe(200)
    expect(described.json().permissions).toEqual(expect.arrayContaining([...BUILT_IN_PERMISSION_NAMES]))
  })

  it('deletes a role: its users lose what it granted, and it is recorded', async () => {
    const role = (await create({ name: uniqueName(), permissions: ['iam.roles.read'] })).json()
    const staff = await createStaff(ctx.app, { roles: [role.name] })
    expect((await api('GET', '/iam/v1/roles', staff.auth)).statusCode).toBe(200)
    expect((await api('DELETE', `/iam/v1/roles/${role.id}`, admin.auth)).statusCode).toBe(204)
    expect((await api('GET', '/iam/v1/roles', staff.auth)).statusCode).toBe(403)
    expect((await api('GET', `/iam/v1/users/${staff.user.id}`, admin.auth)).json().roles).toEqual([])
    expect(await auditOf('iam.role.deleted', role.id)).toHaveLength(1)
    expect((await api('DELETE', `/iam/v1/roles/${role.id}`, admin.auth)).statusCode).toBe(404)
  })

  it('needs iam.roles.write to change', async () => {
    const role = (await create({ name: uniqueName() })).json()
    const reader = await createStaff(ctx.app, { permissions: ['iam.roles.read'] })
    expect((await api('GET', `/iam/v1/roles/${role.id}`, reader.auth)).statusCode).toBe(200)
    expect((await api('PUT', `/iam/v1/roles/${role.id}`, reader.auth, { description: 'x' })).statusCode).toBe(403)
    expect((await api('DELETE', `/iam/v1/roles/${role.id}`, reader.auth)).statusCode).toBe(403)
    expect((await api('DELETE', `/iam/v1/roles/${role.id}`, undefined)).statusCode).toBe(401)
  })
})

describe('role permissions', () => {
  it('reads the permissions of a role as objects, sorted', async () => {
    const role = (await create({ name: uniqueName(), permissions: ['adm.sellers.write', 'adm.catalog.read'] })).json()
    const res = await api('GET', `/iam/v1/roles/${role.id}/permissions`, admin.auth)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual([
      { id: expect.any(String), name: 'adm.catalog.read', description: expect.any(String), created_at: expect.any(String), updated_at: expect.any(String) },
      { id: expect.any(String), name: 'adm.sellers.write', description: expect.any(String), created_at: expect.any(String), updated_at: expect.any(String) },
    ])
    expect((await api('GET', `/iam/v1/roles/${randomUUID()}/permissions`, admin.auth)).statusCode).toBe(404)
  })

  it('syncs the set, answering it and recording the difference', async () => {
    const role = (await create({ name: uniqueName(), permissions: ['adm.catalog.read'] })).json()
    const res = await api('POST', `/iam/v1/roles/${role.id}/permissions`, admin.auth, { permissions: ['adm.orders.read', 'adm.orders.write'] })
    expect(res.statusCode).toBe(200)
    expect(res.json().map((p: { name: string }) => p.name)).toEqual(['adm.orders.read', 'adm.orders.write'])
    const [audit] = await auditOf('iam.role.permissions_synced', role.id)
    expect(audit!.data).toEqual({ role: role.name, added: ['adm.orders.read', 'adm.orders.write'], removed: ['adm.catalog.read'] })
    const after = (await api('GET', `/iam/v1/roles/${role.id}`, admin.auth)).json()
    expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(role.updated_at))
    const bad = await api('POST', `/iam/v1/roles/${role.id}/permissions`, admin.auth, { permissions: ['ghost.permission'] })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().details[0].path).toBe('permissions.0')
    expect((await api('POST', `/iam/v1/roles/${randomUUID()}/permissions`, admin.auth, { permissions: [] })).statusCode).toBe(404)
  })

  it('adds and removes one permission idempotently', async () => {
    const role = (await create({ name: uniqueName() })).json()
    const id = await permissionIdOf('adm.catalog.write')
    const url = `/iam/v1/roles/${role.id}/permissions/${id}`
    expect((await api('PUT', url, admin.auth)).statusCode).toBe(204)
    expect((await api('PUT', url, admin.auth)).statusCode).toBe(204)
    expect((await api('GET', `/iam/v1/roles/${role.id}`, admin.auth)).json().permissions).toEqual(['adm.catalog.write'])
    expect(await auditOf('iam.role.permission_added', role.id)).toHaveLength(1)
    expect((await api('DELETE', url, admin.auth)).statusCode).toBe(204)
    expect((await api('DELETE', url, admin.auth)).statusCode).toBe(204)
    expect((await api('GET', `/iam/v1/roles/${role.id}`, admin.auth)).json().permissions).toEqual([])
    expect(await auditOf('iam.role.permission_removed', role.id)).toHaveLength(1)
    expect((await api('PUT', `/iam/v1/roles/${role.id}/permissions/${randomUUID()}`, admin.auth)).statusCode).toBe(404)
    expect((await api('PUT', `/iam/v1/roles/${randomUUID()}/permissions/${id}`, admin.auth)).statusCode).toBe(404)
    expect((await api('PUT', `/iam/v1/roles/${role.id}/permissions/zzz`, admin.auth)).statusCode).toBe(400)
  })

  it('refuses to add a permission the caller does not hold', async () => {
    const writer = await createStaff(ctx.app, { permissions: ['iam.roles.write', 'iam.roles.read'] })
    const role = (await create({ name: uniqueName() })).json()
    const add = await api('PUT', `/iam/v1/roles/${role.id}/permissions/${await permissionIdOf('adm.orders.write')}`, writer.auth)
    expect(add.statusCode).toBe(403)
    const sync = await api('POST', `/iam/v1/roles/${role.id}/permissions`, writer.auth, { permissions: ['iam.users.write'] })
    expect(sync.statusCode).toBe(403)
    const ok = await api('POST', `/iam/v1/roles/${role.id}/permissions`, writer.auth, { permissions: ['iam.roles.read'] })
    expect(ok.statusCode).toBe(200)
  })
})
