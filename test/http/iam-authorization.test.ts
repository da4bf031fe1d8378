import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../build-app.js'
import { client } from '../support/inject.js'
import { asAdmin, createStaff, type TestStaff } from '../support/staff.js'

const ctx = useTestApp()
const api = client(() => ctx.app)

let admin: TestStaff
beforeAll(async () => {
  admin = await asAdmin(ctx.app)
})

const permissionIdOf = async (name: string) =>
  (await api('POST', '/iam/v1/permissions/search', admin.auth, { q: name })).json().data.find((p: { name: string }) => p.name === name).id as string

describe('permission changes apply to the very next request', () => {
  it('a direct grant and its removal', async () => {
    const staff = await createStaff(ctx.app)
    const url = `/iam/v1/users/${staff.user.id}/permissions/${await permissionIdOf('iam.permissions.read')}`
    expect((await api('GET', '/iam/v1/permissions', staff.auth)).statusCode).toBe(403)
    expect((await api('PUT', url, admin.auth)).statusCode).toBe(204)
    expect((await api('GET', '/iam/v1/permissions', staff.auth)).statusCode).toBe(200)
    expect((await api('DELETE', url, admin.auth)).statusCode).toBe(204)
    expect((await api('GET', '/iam/v1/permissions', staff.auth)).statusCode).toBe(403)
  })

  it('a role given and taken through the user', async () => {
    const staff = await createStaff(ctx.app)
    expect((await api('GET', '/iam/v1/users', staff.auth)).statusCode).toBe(403)
    expect((await api('PUT', `/iam/v1/users/${staff.user.id}`, admin.auth, { roles: ['admin'] })).statusCode).toBe(200)
    expect((await api('GET', '/iam/v1/users', staff.auth)).statusCode).toBe(200)
    expect((await api('PUT', `/iam/v1/users/${staff.user.id}`, admin.auth, { roles: [] })).statusCode).toBe(200)
    expect((await api('GET', '/iam/v1/users', staff.auth)).statusCode).toBe(403)
  })

  it('a permission added to and removed from a role the user holds', async () => {
    const role = (await api('POST', '/iam/v1/roles', admin.auth, { name: `viewers-${Date.now()}` })).json()
    const staff = await createStaff(ctx.app, { roles: [role.name] })
    const url = `/iam/v1/roles/${role.id}/permissions/${await permissionIdOf('iam.roles.read')}`
    expect((await api('GET', '/iam/v1/roles', staff.auth)).statusCode).toBe(403)
    expect((await api('PUT', url, admin.auth)).statusCode).toBe(204)
    expect((await api('GET', '/iam/v1/roles', staff.auth)).statusCode).toBe(200)
    expect((await api('POST', `/iam/v1/roles/${role.id}/permissions`, admin.auth, { permissions: [] })).statusCode).toBe(200)
    expect((await api('GET', '/iam/v1/roles', staff.auth)).statusCode).toBe(403)
  })

  it('the same access token, unchanged, carries no permissions of its own', async () => {
    const staff = await createStaff(ctx.app, { permissions: ['iam.users.read'] })
    const token = staff.auth
    expect((await api('GET', '/iam/v1/users', token)).statusCode).toBe(200)
    await api('POST', `/iam/v1/users/${staff.user.id}/permissions`, admin.auth, { permissions: [] })
    const res = await api('GET', '/iam/v1/users', token)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toMatchObject({ code: 'forbidden', trace_id: res.headers['x-trace-id'] })
  })
})

describe('every protected route', () => {
  const routes: [string, string][] = [
    ['POST', '/iam/v1/users'],
    ['GET', '/iam/v1/users'],
    ['POST', '/iam/v1/users/search'],
    ['GET', '/iam/v1/users/00000000-0000-4000-8000-000000000000'],
    ['PUT', '/iam/v1/users/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/iam/v1/users/00000000-0000-4000-8000-000000000000'],
    ['GET', '/iam/v1/users/00000000-0000-4000-8000-000000000000/roles'],
    ['GET', '/iam/v1/users/00000000-0000-4000-8000-000000000000/permissions'],
    ['POST', '/iam/v1/users/00000000-0000-4000-8000-000000000000/permissions'],
    ['PUT', '/iam/v1/users/00000000-0000-4000-8000-000000000000/permissions/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/iam/v1/users/00000000-0000-4000-8000-000000000000/permissions/00000000-0000-4000-8000-000000000000'],
    ['POST', '/iam/v1/permissions'],
    ['GET', '/iam/v1/permissions'],
    ['POST', '/iam/v1/permissions/search'],
    ['GET', '/iam/v1/permissions/00000000-0000-4000-8000-000000000000'],
    ['PUT', '/iam/v1/permissions/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/iam/v1/permissions/00000000-0000-4000-8000-000000000000'],
    ['POST', '/iam/v1/roles'],
    ['GET', '/iam/v1/roles'],
    ['POST', '/iam/v1/roles/search'],
    ['GET', '/iam/v1/roles/00000000-0000-4000-8000-000000000000'],
    ['PUT', '/iam/v1/roles/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/iam/v1/roles/00000000-0000-4000-8000-000000000000'],
    ['GET', '/iam/v1/roles/00000000-0000-4000-8000-000000000000/permissions'],
    ['POST', '/iam/v1/roles/00000000-0000-4000-8000-000000000000/permissions'],
    ['PUT', '/iam/v1/roles/00000000-0000-4000-8000-000000000000/permissions/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/iam/v1/roles/00000000-0000-4000-8000-000000000000/permissions/00000000-0000-4000-8000-000000000000'],
    ['POST', '/iam/v1/auth/logout'],
  ]

  it('answers 401 unauthorized without a token, before looking at the body', async () => {
    for (const [method, url] of routes) {
      const res = await api(method as 'GET', url, undefined, method === 'GET' || method === 'DELETE' ? undefined : { junk: true })
      expect(res.statusCode, `${method} ${url}`).toBe(401)
      expect(res.json().code).toBe('unauthorized')
    }
  })

  it('answers 403 forbidden to a caller without any permission (except reading itself and logging out)', async () => {
    const nobody = await createStaff(ctx.app)
    for (const [method, url] of routes.filter(([, url]) => !url.endsWith('/logout'))) {
      const res = await api(method as 'GET', url, nobody.auth, method === 'GET' || method === 'DELETE' ? undefined : { junk: true })
      expect(res.statusCode, `${method} ${url}`).toBe(403)
      expect(res.json().code).toBe('forbidden')
    }
  })
})
