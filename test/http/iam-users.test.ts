import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { BUILT_IN_PERMISSION_NAMES } from '../../src/domain/staff/builtins.js'
import { staffUsers } from '../../src/domain/staff/users.table.js'
import { useTestApp } from '../build-app.js'
import { client } from '../support/inject.js'
import { asAdmin, createStaff, type TestStaff } from '../support/staff.js'

const ctx = useTestApp({ env: { IAM_LOGIN_LIMIT_PER_IP: '1000' } })
const api = client(() => ctx.app)

let admin: TestStaff
beforeAll(async () => {
  admin = await asAdmin(ctx.app, { name: 'Admin Person' })
})

const newUser = (overrides: Record<string, unknown> = {}) => ({
  name: 'New Person',
  email: `new-${randomUUID()}@example.test`,
  password: 'a-good-password',
  ...overrides,
})

const auditOf = (action: string, targetId: string) =>
  ctx.app.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.targetId, targetId)))

async function permissionId(name: string): Promise<string> {
  const res = await api('POST', '/iam/v1/permissions/search', admin.auth, { q: name, limit: 100 })
  const found = res.json().data.find((p: { name: string }) => p.name === name)
  if (!found) throw new Error(`no permission ${name}`)
  return found.id
}

describe('POST /iam/v1/users', () => {
  it('creates a user with roles, answers 201 without any password material, and records it', async () => {
    const body = newUser({ name: '  Grace Hopper ', roles: ['admin'] })
    const res = await api('POST', '/iam/v1/users', admin.auth, body)
    expect(res.statusCode).toBe(201)
    const user = res.json()
    expect(user).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Grace Hopper',
      email: body.email,
      roles: ['admin'],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    expect(res.body).not.toMatch(/password|argon2/i)
    const login = await api('POST', '/iam/v1/auth/login', undefined, { username: body.email, password: body.password })
    expect(login.statusCode).toBe(200)
    const [audit] = await auditOf('iam.user.created', user.id)
    expect(audit).toMatchObject({ actorType: 'staff', actorId: admin.user.id, data: { email: body.email, roles: ['admin'] } })
    expect(audit!.traceId).toBe(res.headers['x-trace-id'])
  })

  it('refuses an email already in use, in any case, with 409 email_taken', async () => {
    const body = newUser({ email: 'Taken.Address@example.test' })
    expect((await api('POST', '/iam/v1/users', admin.auth, body)).statusCode).toBe(201)
    const again = await api('POST', '/iam/v1/users', admin.auth, newUser({ email: 'taken.address@EXAMPLE.test' }))
    expect(again.statusCode).toBe(409)
    expect(again.json().code).toBe('email_taken')
  })

  it('creates one user of five racing for the same email; the others get 409', async () => {
    const email = `race-${randomUUID()}@example.test`
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => api('POST', '/iam/v1/users', admin.auth, newUser({ email: i % 2 ? email.toUpperCase() : email }))),
    )
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409])
    expect(results.filter((r) => r.statusCode === 409).every((r) => r.json().code === 'email_taken')).toBe(true)
  })

  it('names unknown roles in a 400 validation_error', async () => {
    const res = await api('POST', '/iam/v1/users', admin.auth, newUser({ roles: ['admin', 'no-such-role', 'nor-this'] }))
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({
      code: 'validation_error',
      details: [
        { path: 'roles.1', message: expect.stringContaining('no-such-role') },
        { path: 'roles.2', message: expect.stringContaining('nor-this') },
      ],
    })
  })

  it('validates the body', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [newUser({ password: 'short' }), 'password'],
      [newUser({ password: 'x'.repeat(129) }), 'password'],
      [newUser({ email: 'not-an-email' }), 'email'],
      [newUser({ name: '   ' }), 'name'],
      [newUser({ is_superuser: true }), ''],
      [newUser({ roles: ['Bad Name'] }), 'roles.0'],
      [{ name: 'No Email', password: 'a-good-password' }, 'email'],
    ]
    for (const [body, path] of cases) {
      const res = await api('POST', '/iam/v1/users', admin.auth, body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().code).toBe('validation_error')
      if (path) expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path)
    }
  })

  it('needs a token (401) and iam.users.write (403)', async () => {
    expect((await api('POST', '/iam/v1/users', undefined, newUser())).statusCode).toBe(401)
    const reader = await createStaff(ctx.app, { permissions: ['iam.users.read'] })
    const res = await api('POST', '/iam/v1/users', reader.auth, newUser())
    expect(res.statusCode).toBe(403)
    expect(res.json().code).toBe('forbidden')
  })

  it('refuses to give a role granting permissions the caller lacks', async () => {
    const writer = await createStaff(ctx.app, { permissions: ['iam.users.write', 'iam.users.read'] })
    const res = await api('POST', '/iam/v1/users', writer.auth, newUser({ roles: ['admin'] }))
    expect(res.statusCode).toBe(403)
    expect(res.json().message).toContain('adm.orders.read')
    expect((await api('POST', '/iam/v1/users', writer.auth, newUser())).statusCode).toBe(201)
  })
})

describe('GET /iam/v1/users and POST /iam/v1/users/search', () => {
  let tagged: string[]
  beforeAll(async () => {
    const tag = randomUUID().slice(0, 8)
    tagged = []
    for (const [name, roles] of [
      ['Zoe Search', []],
      ['Abe Search', ['admin']],
      ['Mia Search', []],
    ] as const) {
      const res = await api('POST', '/iam/v1/users', admin.auth, newUser({ name, email: `${name.split(' ')[0]}.${tag}@find.test`, roles }))
      tagged.push(res.json().id)
    }
  })

  it('lists a page with meta, sorted by name', async () => {
    const res = await api('GET', '/iam/v1/users?limit=2&page=1', admin.auth)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.meta).toEqual({ count: 2, limit: 2, page: 1, total: expect.any(Number) })
    expect(body.meta.total).toBeGreaterThanOrEqual(4)
    const all = await api('GET', '/iam/v1/users?limit=100', admin.auth)
    const names = all.json().data.map((u: { name: string }) => u.name)
    expect(names).toEqual([...names].sort())
    expect(all.json().meta.count).toBe(all.json().data.length)
    const beyond = await api('GET', '/iam/v1/users?page=999', admin.auth)
    expect(beyond.json()).toMatchObject({ data: [], meta: { count: 0, page: 999 } })
  })

  it('rejects page and limit out of range', async () => {
    for (const query of ['limit=101', 'limit=0', 'page=0', 'page=abc']) {
      const res = await api('GET', `/iam/v1/users?${query}`, admin.auth)
      expect(res.statusCode, query).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
  })

  it('searches name and email in any case, filters by role and sorts', async () => {
    const byEmail = await api('POST', '/iam/v1/users/search', admin.auth, { q: '@FIND.test' })
    expect(byEmail.statusCode).toBe(200)
    expect(byEmail.json().data.map((u: { name: string }) => u.name)).toEqual(['Abe Search', 'Mia Search', 'Zoe Search'])
    expect(byEmail.json().meta).toEqual({ count: 3, limit: 20, page: 1, total: 3 })

    const desc = await api('POST', '/iam/v1/users/search', admin.auth, { q: 'search', sort: '-name', limit: 2 })
    expect(desc.json().data.map((u: { name: string }) => u.name)).toEqual(['Zoe Search', 'Mia Search'])
    expect(desc.json().meta).toEqual({ count: 2, limit: 2, page: 1, total: 3 })

    const newest = await api('POST', '/iam/v1/users/search', admin.auth, { q: 'find.test', sort: '-created_at' })
    expect(newest.json().data.map((u: { id: string }) => u.id)).toEqual([...tagged].reverse())

    const admins = await api('POST', '/iam/v1/users/search', admin.auth, { q: 'search', role: 'admin' })
    expect(admins.json().data.map((u: { name: string; roles: string[] }) => [u.name, u.roles])).toEqual([['Abe Search', ['admin']]])
  })

  it('matches wildcard characters literally', async () => {
    const res = await api('POST', '/iam/v1/users/search', admin.auth, { q: '%' })
    expect(res.json().data).toEqual([])
    const underscore = await api('POST', '/iam/v1/users/search', admin.auth, { q: '_' })
    expect(underscore.json().data).toEqual([])
  })

  it('validates the search body', async () => {
    for (const body of [{ sort: 'email' }, { limit: 101 }, { page: 0 }, { q: 'x', extra: 1 }, { role: 'Not A Name' }]) {
      const res = await api('POST', '/iam/v1/users/search', admin.auth, body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
    }
  })

  it('needs iam.users.read', async () => {
    const nobody = await createStaff(ctx.app)
    expect((await api('GET', '/iam/v1/users', nobody.auth)).statusCode).toBe(403)
    expect((await api('POST', '/iam/v1/users/search', nobody.auth, {})).statusCode).toBe(403)
    expect((await api('GET', '/iam/v1/users', undefined)).statusCode).toBe(401)
  })
})

describe('GET /iam/v1/users/{id}', () => {
  it('answers a user; 404 for an unknown id and 400 for a malformed one', async () => {
    const res = await api('GET', `/iam/v1/users/${admin.user.id}`, admin.auth)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ id: admin.user.id, email: admin.user.email, roles: ['admin'] })
    const missing = await api('GET', `/iam/v1/users/${randomUUID()}`, admin.auth)
    expect(missing.statusCode).toBe(404)
    expect(missing.json().code).toBe('not_found')
    const malformed = await api('GET', '/iam/v1/users/not-a-uuid', admin.auth)
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json().details[0].path).toBe('params.id')
  })

  it('lets a user read itself without iam.users.read, but not others', async () => {
    const plain = await createStaff(ctx.app)
    expect((await api('GET', `/iam/v1/users/${plain.user.id}`, plain.auth)).statusCode).toBe(200)
    expect((await api('GET', `/iam/v1/users/${plain.user.id}/roles`, plain.auth)).statusCode).toBe(200)
    expect((await api('GET', `/iam/v1/users/${plain.user.id}/permissions`, plain.auth)).statusCode).toBe(200)
    for (const url of [`/iam/v1/users/${admin.user.id}`, `/iam/v1/users/${admin.user.id}/roles`, `/iam/v1/users/${admin.user.id}/permissions`]) {
      const res = await api('GET', url, plain.auth)
      expect(res.statusCode, url).toBe(403)
      expect(res.json().code).toBe('forbidden')
    }
  })
})

describe('PUT /iam/v1/users/{id}', () => {
  it('changes the given fields and records them', async () => {
    const created = (await api('POST', '/iam/v1/users', admin.auth, newUser({ name: 'Before Name' }))).json()
    const res = await api('PUT', `/iam/v1/users/${created.id}`, admin.auth, { name: 'After Name', roles: ['admin'] })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ id: created.id, name: 'After Name', email: created.email, roles: ['admin'], created_at: created.created_at })
    expect(Date.parse(res.json().updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at))
    const [audit] = await auditOf('iam.user.updated', created.id)
    expect(audit!.data).toMatchObject({ changed: ['name', 'roles'], roles_added: ['admin'], roles_removed: [] })
    const cleared = await api('PUT', `/iam/v1/users/${created.id}`, admin.auth, { roles: [] })
    expect(cleared.json().roles).toEqual([])
  })

  it('changes the email, refusing one in use in any case, and allows a case change of its own', async () => {
    const a = (await api('POST', '/iam/v1/users', admin.auth, newUser({ email: 'first.owner@example.test' }))).json()
    const b = (await api('POST', '/iam/v1/users', admin.auth, newUser())).json()
    const clash = await api('PUT', `/iam/v1/users/${b.id}`, admin.auth, { email: 'FIRST.owner@example.test' })
    expect(clash.statusCode).toBe(409)
    expect(clash.json().code).toBe('email_taken')
    const own = await api('PUT', `/iam/v1/users/${a.id}`, admin.auth, { email: 'First.Owner@example.test' })
    expect(own.statusCode).toBe(200)
    expect(own.json().email).toBe('First.Owner@example.test')
  })

  it('sets a new password and signs the user out everywhere', async () => {
    const staff = await createStaff(ctx.app, { password: 'the-first-password' })
    const res = await api('PUT', `/iam/v1/users/${staff.user.id}`, admin.auth, { password: 'the-second-password' })
    expect(res.statusCode).toBe(200)
    expect((await api('GET', `/iam/v1/users/${staff.user.id}`, staff.auth)).statusCode).toBe(401)
    expect((await api('POST', '/iam/v1/auth/refresh', undefined, { refresh_token: staff.refreshToken })).statusCode).toBe(401)
    const login = await api('POST', '/iam/v1/auth/login', undefined, { username: staff.user.email, password: 'the-second-password' })
    expect(login.statusCode).toBe(200)
    const [audit] = await auditOf('iam.user.updated', staff.user.id)
    expect(JSON.stringify(audit)).not.toContain('the-second-password')
  })

  it('answers 400 for an empty or invalid body, 404 for an unknown user', async () => {
    const staff = await createStaff(ctx.app)
    for (const body of [{}, { roles: ['nope-role'] }, { email: 'x' }, { password: 'short' }, { name: 'n', admin: true }]) {
      const res = await api('PUT', `/iam/v1/users/${staff.user.id}`, admin.auth, body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
    expect((await api('PUT', `/iam/v1/users/${randomUUID()}`, admin.auth, { name: 'Ghost' })).statusCode).toBe(404)
    expect((await api('PUT', '/iam/v1/users/123', admin.auth, { name: 'Ghost' })).statusCode).toBe(400)
  })

  it('refuses to let a less privileged writer change a more privileged user (no takeover)', async () => {
    const writer = await createStaff(ctx.app, { permissions: ['iam.users.write'] })
    const res = await api('PUT', `/iam/v1/users/${admin.user.id}`, writer.auth, { password: 'hijacked-password' })
    expect(res.statusCode).toBe(403)
    const login = await api('POST', '/iam/v1/auth/login', undefined, { username: admin.user.email, password: 'hijacked-password' })
    expect(login.statusCode).toBe(401)
    // Granting itself a role it does not fully hold is refused too.
    const self = await api('PUT', `/iam/v1/users/${writer.user.id}`, writer.auth, { roles: ['admin'] })
    expect(self.statusCode).toBe(403)
    // A user it fully covers is fine.
    const peer = await createStaff(ctx.app)
    expect((await api('PUT', `/iam/v1/users/${peer.user.id}`, writer.auth, { name: 'Renamed Peer' })).statusCode).toBe(200)
  })

  it('keeps at least one admin', async () => {
    await resetToOneAdmin()
    const res = await api('PUT', `/iam/v1/users/${admin.user.id}`, admin.auth, { roles: [] })
    expect(res.statusCode).toBe(403)
    expect(res.json().message).toMatch(/admin/)
    const second = await asAdmin(ctx.app)
    expect((await api('PUT', `/iam/v1/users/${admin.user.id}`, second.auth, { roles: [] })).statusCode).toBe(200)
    expect((await api('PUT', `/iam/v1/users/${second.user.id}`, second.auth, { roles: [] })).statusCode).toBe(403)
    // Give the role back for the other tests.
    expect((await api('PUT', `/iam/v1/users/${admin.user.id}`, second.auth, { roles: ['admin'] })).statusCode).toBe(200)
  })
})

/** Takes the admin role from every user but `admin`. */
async function resetToOneAdmin() {
  const admins = (await api('POST', '/iam/v1/users/search', admin.auth, { role: 'admin', limit: 100 })).json().data
  for (const other of admins.filter((u: { id: string }) => u.id !== admin.user.id)) {
    expect((await api('PUT', `/iam/v1/users/${other.id}`, admin.auth, { roles: [] })).statusCode).toBe(200)
  }
}

describe('DELETE /iam/v1/users/{id}', () => {
  it('deletes a user, whose tokens stop working at once, and records it', async () => {
    const staff = await createStaff(ctx.app)
    const res = await api('DELETE', `/iam/v1/users/${staff.user.id}`, admin.auth)
    expect(res.statusCode).toBe(204)
    expect((await api('GET', `/iam/v1/users/${staff.user.id}`, admin.auth)).statusCode).toBe(404)
    expect((await api('GET', `/iam/v1/users/${staff.user.id}`, staff.auth)).statusCode).toBe(401)
    expect(await auditOf('iam.user.deleted', staff.user.id)).toHaveLength(1)
    expect((await api('DELETE', `/iam/v1/users/${staff.user.id}`, admin.auth)).statusCode).toBe(404)
  })

  it('refuses to delete yourself', async () => {
    const res = await api('DELETE', `/iam/v1/users/${admin.user.id}`, admin.auth)
    expect(res.statusCode).toBe(403)
    expect(res.json().message).toMatch(/yourself/)
  })

  it('refuses to delete the last admin', async () => {
    await resetToOneAdmin()
    // Holds every built-in permission directly, but not the admin role.
    const powerful = await createStaff(ctx.app, { permissions: [...BUILT_IN_PERMISSION_NAMES] })
    const res = await api('DELETE', `/iam/v1/users/${admin.user.id}`, powerful.auth)
    expect(res.statusCode).toBe(403)
    expect(res.json().message).toMatch(/admin/)
  })

  it('refuses a writer deleting a user with more permissions, and a caller without iam.users.write', async () => {
    const writer = await createStaff(ctx.app, { permissions: ['iam.users.write'] })
    expect((await api('DELETE', `/iam/v1/users/${admin.user.id}`, writer.auth)).statusCode).toBe(403)
    const reader = await createStaff(ctx.app, { permissions: ['iam.users.read'] })
    const peer = await createStaff(ctx.app)
    expect((await api('DELETE', `/iam/v1/users/${peer.user.id}`, reader.auth)).statusCode).toBe(403)
    expect((await api('DELETE', `/iam/v1/users/${peer.user.id}`, undefined)).statusCode).toBe(401)
    expect((await api('DELETE', '/iam/v1/users/nope', admin.auth)).statusCode).toBe(400)
    expect(await ctx.app.db.select().from(staffUsers).where(eq(staffUsers.id, peer.user.id))).toHaveLength(1)
  })
})

describe('GET /iam/v1/users/{id}/roles', () => {
  it('answers the roles with their permissions', async () => {
    const res = await api('GET', `/iam/v1/users/${admin.user.id}/roles`, admin.auth)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual([
      {
        id: expect.any(String),
        name: 'admin',
        description: expect.any(String),
        permissions: expect.arrayContaining([...BUILT_IN_PERMISSION_NAMES]),
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ])
    expect((await api('GET', `/iam/v1/users/${randomUUID()}/roles`, admin.auth)).statusCode).toBe(404)
  })
})

describe('user permissions', () => {
  it('answers the effective set: direct grants and those of roles, saying where each comes from', async () => {
    const role = (
      await api('POST', '/iam/v1/roles', admin.auth, { name: `support-${randomUUID().slice(0, 6)}`, permissions: ['adm.orders.read', 'adm.sellers.read'] })
    ).json()
    const staff = await createStaff(ctx.app, { roles: [role.name], permissions: ['adm.orders.read', 'adm.catalog.read'] })
    const res = await api('GET', `/iam/v1/users/${staff.user.id}/permissions`, admin.auth)
    expect(res.statusCode).toBe(200)
    expect(res.json().map((p: Record<string, unknown>) => [p.name, p.direct, p.roles])).toEqual([
      ['adm.catalog.read', true, []],
      ['adm.orders.read', true, [role.name]],
      ['adm.sellers.read', false, [role.name]],
    ])
    expect(res.json()[0]).toEqual({ id: expect.any(String), name: 'adm.catalog.read', description: expect.any(String), direct: true, roles: [] })
  })

  it('syncs the direct grants, answers the effective set and records the difference', async () => {
    const staff = await createStaff(ctx.app, { permissions: ['adm.orders.read'] })
    const res = await api('POST', `/iam/v1/users/${staff.user.id}/permissions`, admin.auth, {
      permissions: ['adm.sellers.read', 'adm.catalog.read', 'adm.catalog.read'],
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().map((p: { name: string }) => p.name)).toEqual(['adm.catalog.read', 'adm.sellers.read'])
    const [audit] = await auditOf('iam.user.permissions_synced', staff.user.id)
    expect(audit!.data).toEqual({ added: ['adm.catalog.read', 'adm.sellers.read'], removed: ['adm.orders.read'] })
    const emptied = await api('POST', `/iam/v1/users/${staff.user.id}/permissions`, admin.auth, { permissions: [] })
    expect(emptied.json()).toEqual([])
  })

  it('names unknown permissions in a sync with 400, and changes nothing', async () => {
    const staff = await createStaff(ctx.app, { permissions: ['adm.orders.read'] })
    const res = await api('POST', `/iam/v1/users/${staff.user.id}/permissions`, admin.auth, { permissions: ['adm.orders.write', 'made.up'] })
    expect(res.statusCode).toBe(400)
    expect(res.json().details).toEqual([{ path: 'permissions.1', message: expect.stringContaining('made.up') }])
    const now = await api('GET', `/iam/v1/users/${staff.user.id}/permissions`, admin.auth)
    expect(now.json().map((p: { name: string }) => p.name)).toEqual(['adm.orders.read'])
    for (const body of [{}, { permissions: 'adm.orders.read' }, { permissions: [], extra: true }]) {
      expect((await api('POST', `/iam/v1/users/${staff.user.id}/permissions`, admin.auth, body)).statusCode).toBe(400)
    }
    expect((await api('POST', `/iam/v1/users/${randomUUID()}/permissions`, admin.auth, { permissions: [] })).statusCode).toBe(404)
  })

  it('adds and removes one permission idempotently, recording each real change once', async () => {
    const staff = await createStaff(ctx.app)
    const id = await permissionId('adm.catalog.write')
    const url = `/iam/v1/users/${staff.user.id}/permissions/${id}`
    expect((await api('PUT', url, admin.auth)).statusCode).toBe(204)
    expect((await api('PUT', url, admin.auth)).statusCode).toBe(204)
    expect((await api('GET', `/iam/v1/users/${staff.user.id}/permissions`, admin.auth)).json().map((p: { name: string }) => p.name)).toEqual([
      'adm.catalog.write',
    ])
    expect(await auditOf('iam.user.permission_added', staff.user.id)).toHaveLength(1)
    expect((await api('DELETE', url, admin.auth)).statusCode).toBe(204)
    expect((await api('DELETE', url, admin.auth)).statusCode).toBe(204)
    expect((await api('GET', `/iam/v1/users/${staff.user.id}/permissions`, admin.auth)).json()).toEqual([])
    expect(await auditOf('iam.user.permission_removed', staff.user.id)).toHaveLength(1)
  })

  it('keeps a permission a role still grants when the direct grant is removed', async () => {
    const staff = await createStaff(ctx.app, { roles: ['admin'], permissions: ['adm.orders.read'] })
    await api('DELETE', `/iam/v1/users/${staff.user.id}/permissions/${await permissionId('adm.orders.read')}`, admin.auth)
    const effective = (await api('GET', `/iam/v1/users/${staff.user.id}/permissions`, admin.auth)).json()
    expect(effective.find((p: { name: string }) => p.name === 'adm.orders.read')).toMatchObject({ direct: false, roles: ['admin'] })
  })

  it('answers 404 for an unknown user or permission and 400 for a malformed id', async () => {
    const staff = await createStaff(ctx.app)
    const id = await permissionId('adm.orders.read')
    expect((await api('PUT', `/iam/v1/users/${randomUUID()}/permissions/${id}`, admin.auth)).statusCode).toBe(404)
    expect((await api('PUT', `/iam/v1/users/${staff.user.id}/permissions/${randomUUID()}`, admin.auth)).statusCode).toBe(404)
    expect((await api('DELETE', `/iam/v1/users/${staff.user.id}/permissions/${randomUUID()}`, admin.auth)).statusCode).toBe(404)
    const malformed = await api('PUT', `/iam/v1/users/${staff.user.id}/permissions/adm.orders.read`, admin.auth)
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json().details[0].path).toBe('params.permission_id')
  })

  it('refuses to grant a permission the caller does not hold', async () => {
    const writer = await createStaff(ctx.app, { permissions: ['iam.users.write', 'adm.orders.read'] })
    const peer = await createStaff(ctx.app)
    const sync = await api('POST', `/iam/v1/users/${peer.user.id}/permissions`, writer.auth, { permissions: ['adm.orders.read', 'adm.orders.write'] })
    expect(sync.statusCode).toBe(403)
    expect(sync.json().message).toContain('adm.orders.write')
    expect((await api('PUT', `/iam/v1/users/${peer.user.id}/permissions/${await permissionId('adm.orders.write')}`, writer.auth)).statusCode).toBe(403)
    expect((await api('PUT', `/iam/v1/users/${writer.user.id}/permissions/${await permissionId('iam.roles.write')}`, writer.auth)).statusCode).toBe(403)
    expect((await api('PUT', `/iam/v1/users/${peer.user.id}/permissions/${await permissionId('adm.orders.read')}`, writer.auth)).statusCode).toBe(204)
  })

  it('needs iam.users.write to change permissions', async () => {
    const reader = await createStaff(ctx.app, { permissions: ['iam.users.read'] })
    const id = await permissionId('adm.orders.read')
    expect((await api('PUT', `/iam/v1/users/${reader.user.id}/permissions/${id}`, reader.auth)).statusCode).toBe(403)
    expect((await api('DELETE', `/iam/v1/users/${reader.user.id}/permissions/${id}`, reader.auth)).statusCode).toBe(403)
    expect((await api('POST', `/iam/v1/users/${reader.user.id}/permissions`, reader.auth, { permissions: [] })).statusCode).toBe(403)
    expect((await api('PUT', `/iam/v1/users/${reader.user.id}/permissions/${id}`, undefined)).statusCode).toBe(401)
  })
})
