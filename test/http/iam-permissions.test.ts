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
beforeAll(async () => {
  admin = await asAdmin(ctx.app)
})

const uniqueName = (prefix = 'reports') => `${prefix}.${randomUUID().slice(0, 8)}`
const create = (body: Record<string, unknown>, auth = admin.auth) => api('POST', '/iam/v1/permissions', auth, body)
const builtIn = async (name: string) =>
  (await api('POST', '/iam/v1/permissions/search', admin.auth, { q: name })).json().data.find((p: { name: string }) => p.name === name)

describe('POST /iam/v1/permissions', () => {
  it('creates a permission and records it', async () => {
    const name = uniqueName()
    const res = await create({ name, description: 'Export reports' })
    expect(res.statusCode).toBe(201)
    expect(res.json()).toEqual({
      id: expect.any(String),
      name,
      description: 'Export reports',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const audit = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'iam.permission.created'), eq(auditLog.targetId, res.json().id)))
    expect(audit[0]).toMatchObject({ actorId: admin.user.id, data: { name } })
    expect((await create({ name: uniqueName() })).json().description).toBe('')
  })

  it('grants a new permission to the admin role at once, so that admins may grant it on', async () => {
    const writer = await createStaff(ctx.app, { permissions: ['iam.permissions.write', 'iam.users.write'] })
    const permission = (await create({ name: uniqueName() }, writer.auth)).json()
    const admins = (await api('GET', '/iam/v1/roles?limit=100', admin.auth)).json().data.find((r: { name: string }) => r.name === 'admin')
    expect(admins.permissions).toContain(permission.name)
    // The creator does not hold it, so it cannot grant it; an admin can.
    const peer = await createStaff(ctx.app)
    const url = `/iam/v1/users/${peer.user.id}/permissions/${permission.id}`
    const refused = await api('PUT', url, writer.auth)
    expect(refused.statusCode).toBe(403)
    expect(refused.json().message).toContain(permission.name)
    expect((await api('PUT', url, admin.auth)).statusCode).toBe(204)
  })

  it('refuses a name in use with 409 already_exists', async () => {
    const name = uniqueName()
    await create({ name })
    const again = await create({ name })
    expect(again.statusCode).toBe(409)
    expect(again.json().code).toBe('already_exists')
    expect((await create({ name: 'iam.users.read' })).json().code).toBe('already_exists')
  })

  it('validates the body', async () => {
    for (const body of [
      {},
      { name: '' },
      { name: 'Has Spaces' },
      { name: 'UPPER.case' },
      { name: 'a..b' },
      { name: 'x'.repeat(101) },
      { name: 'ok.name', extra: 1 },
      { name: 'ok.name', description: 'd'.repeat(501) },
    ]) {
      const res = await create(body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
  })

  it('needs iam.permissions.write', async () => {
    const reader = await createStaff(ctx.app, { permissions: ['iam.permissions.read'] })
    expect((await create({ name: uniqueName() }, reader.auth)).statusCode).toBe(403)
    expect((await api('POST', '/iam/v1/permissions', undefined, { name: uniqueName() })).statusCode).toBe(401)
  })
})

describe('GET /iam/v1/permissions and POST /iam/v1/permissions/search', () => {
  it('lists every permission, built-ins included, sorted by name and paginated', async () => {
    const res = await api('GET', '/iam/v1/permissions?limit=100', admin.auth)
    expect(res.statusCode).toBe(200)
    const names = res.json().data.map((p: { name: string }) => p.name)
    expect(names).toEqual(expect.arrayContaining([...BUILT_IN_PERMISSION_NAMES]))
    expect(names).toEqual([...names].sort())
    const page2 = await api('GET', '/iam/v1/permissions?limit=5&page=2', admin.auth)
    expect(page2.json().meta).toEqual({ count: 5, limit: 5, page: 2, total: res.json().meta.total })
    expect(page2.json().data.map((p: { name: string }) => p.name)).toEqual(names.slice(5, 10))
  })

  it('searches name and description in any case and sorts', async () => {
    const tag = randomUUID().slice(0, 8)
    await create({ name: `zz.${tag}.first`, description: 'Alpha' })
    await create({ name: `aa.${tag}.second`, description: `Mentions ${tag.toUpperCase()}` })
    const res = await api('POST', '/iam/v1/permissions/search', admin.auth, { q: tag })
    expect(res.json().data.map((p: { name: string }) => p.name)).toEqual([`aa.${tag}.second`, `zz.${tag}.first`])
    const desc = await api('POST', '/iam/v1/permissions/search', admin.auth, { q: tag, sort: '-created_at', limit: 1 })
    expect(desc.json()).toMatchObject({ data: [{ name: `aa.${tag}.second` }], meta: { count: 1, limit: 1, page: 1, total: 2 } })
    expect((await api('POST', '/iam/v1/permissions/search', admin.auth, { sort: 'size' })).statusCode).toBe(400)
  })

  it('needs iam.permissions.read', async () => {
    const nobody = await createStaff(ctx.app)
    expect((await api('GET', '/iam/v1/permissions', nobody.auth)).statusCode).toBe(403)
    expect((await api('POST', '/iam/v1/permissions/search', nobody.auth, {})).statusCode).toBe(403)
  })
})

describe('GET, PUT and DELETE /iam/v1/permissions/{id}', () => {
  it('reads one; 404 when unknown, 400 when malformed', async () => {
    const created = (await create({ name: uniqueName() })).json()
    const res = await api('GET', `/iam/v1/permissions/${created.id}`, admin.auth)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual(created)
    expect((await api('GET', `/iam/v1/permissions/${randomUUID()}`, admin.auth)).statusCode).toBe(404)
    expect((await api('GET', '/iam/v1/permissions/abc', admin.auth)).statusCode).toBe(400)
  })

  it('renames and redescribes; refuses a taken name', async () => {
    const created = (await create({ name: uniqueName() })).json()
    const newName = uniqueName('renamed')
    const res = await api('PUT', `/iam/v1/permissions/${created.id}`, admin.auth, { name: newName, description: 'Now described' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ id: created.id, name: newName, description: 'Now described' })
    const clash = await api('PUT', `/iam/v1/permissions/${created.id}`, admin.auth, { name: 'adm.orders.read' })
    expect(clash.statusCode).toBe(409)
    expect(clash.json().code).toBe('already_exists')
    expect((await api('PUT', `/iam/v1/permissions/${created.id}`, admin.auth, {})).statusCode).toBe(400)
    expect((await api('PUT', `/iam/v1/permissions/${randomUUID()}`, admin.auth, { description: 'x' })).statusCode).toBe(404)
  })

  it('protects built-in permissions from renaming and deletion, but lets their description change', async () => {
    const usersRead = await builtIn('iam.users.read')
    const rename = await api('PUT', `/iam/v1/permissions/${usersRead.id}`, admin.auth, { name: 'iam.users.peek' })
    expect(rename.statusCode).toBe(403)
    expect(rename.json().code).toBe('forbidden')
    const del = await api('DELETE', `/iam/v1/permissions/${usersRead.id}`, admin.auth)
    expect(del.statusCode).toBe(403)
    const described = await api('PUT', `/iam/v1/permissions/${usersRead.id}`, admin.auth, { name: 'iam.users.read', description: 'Read staff' })
    expect(described.statusCode).toBe(200)
    expect(described.json()).toMatchObject({ name: 'iam.users.read', description: 'Read staff' })
  })

  it('deletes a permission with its grants to users and roles, and records it', async () => {
    const permission = (await create({ name: uniqueName() })).json()
    const role = (await api('POST', '/iam/v1/roles', admin.auth, { name: uniqueName('role'), permissions: [permission.name] })).json()
    const staff = await createStaff(ctx.app, { permissions: [permission.name] })
    const res = await api('DELETE', `/iam/v1/permissions/${permission.id}`, admin.auth)
    expect(res.statusCode).toBe(204)
    expect((await api('GET', `/iam/v1/permissions/${permission.id}`, admin.auth)).statusCode).toBe(404)
    expect((await api('GET', `/iam/v1/roles/${role.id}`, admin.auth)).json().permissions).toEqual([])
    expect((await api('GET', `/iam/v1/users/${staff.user.id}/permissions`, admin.auth)).json()).toEqual([])
    const audit = await ctx.app.db.select().from(auditLog).where(eq(auditLog.action, 'iam.permission.deleted'))
    expect(audit.some((a) => a.targetId === permission.id && a.data.name === permission.name)).toBe(true)
    expect((await api('DELETE', `/iam/v1/permissions/${permission.id}`, admin.auth)).statusCode).toBe(404)
  })

  it('needs iam.permissions.read to read and iam.permissions.write to change', async () => {
    const permission = (await create({ name: uniqueName() })).json()
    const reader = await createStaff(ctx.app, { permissions: ['iam.permissions.read'] })
    expect((await api('GET', `/iam/v1/permissions/${permission.id}`, reader.auth)).statusCode).toBe(200)
    expect((await api('PUT', `/iam/v1/permissions/${permission.id}`, reader.auth, { description: 'x' })).statusCode).toBe(403)
    expect((await api('DELETE', `/iam/v1/permissions/${permission.id}`, reader.auth)).statusCode).toBe(403)
    const nobody = await createStaff(ctx.app)
    expect((await api('GET', `/iam/v1/permissions/${permission.id}`, nobody.auth)).statusCode).toBe(403)
    expect((await api('GET', `/iam/v1/permissions/${permission.id}`, undefined)).statusCode).toBe(401)
  })
})
