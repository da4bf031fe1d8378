import { describe, expect, it } from 'vitest'
import { useTestApp } from '../build-app.js'

const ctx = useTestApp()

const PUBLIC = new Set([
  'get /iam/v1/health',
  'get /iam/v1/info',
  'post /iam/v1/auth/login',
  'post /iam/v1/auth/refresh',
  'post /iam/v1/password/recover',
  'post /iam/v1/password/reset',
])

type Operation = {
  tags?: string[]
  summary?: string
  description?: string
  security?: unknown
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> }
  responses: Record<string, unknown>
}

describe('the OpenAPI document for /iam/v1', () => {
  it('lists every operation of the contract at its path', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>)
      .filter(([path]) => path.startsWith('/iam/v1'))
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`))
    const expected = [
      'post /iam/v1/auth/login',
      'post /iam/v1/auth/refresh',
      'post /iam/v1/auth/logout',
      'get /iam/v1/health',
      'get /iam/v1/info',
      'post /iam/v1/password/recover',
      'post /iam/v1/password/reset',
      'post /iam/v1/users',
      'get /iam/v1/users',
      'post /iam/v1/users/search',
      'get /iam/v1/users/{id}',
      'put /iam/v1/users/{id}',
      'delete /iam/v1/users/{id}',
      'get /iam/v1/users/{id}/permissions',
      'post /iam/v1/users/{id}/permissions',
      'put /iam/v1/users/{id}/permissions/{permission_id}',
      'delete /iam/v1/users/{id}/permissions/{permission_id}',
      'get /iam/v1/users/{id}/roles',
      'post /iam/v1/permissions',
      'get /iam/v1/permissions',
      'post /iam/v1/permissions/search',
      'get /iam/v1/permissions/{id}',
      'put /iam/v1/permissions/{id}',
      'delete /iam/v1/permissions/{id}',
      'post /iam/v1/roles',
      'get /iam/v1/roles',
      'post /iam/v1/roles/search',
      'get /iam/v1/roles/{id}',
      'put /iam/v1/roles/{id}',
      'delete /iam/v1/roles/{id}',
      'get /iam/v1/roles/{id}/permissions',
      'post /iam/v1/roles/{id}/permissions',
      'put /iam/v1/roles/{id}/permissions/{permission_id}',
      'delete /iam/v1/roles/{id}/permissions/{permission_id}',
    ]
    expect(operations.sort()).toEqual(expected.sort())
  })

  it('tags and summarises each operation, requires the staff bearer where a token is needed, and lists its errors', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      if (!path.startsWith('/iam/v1')) continue
      for (const [method, op] of Object.entries(ops)) {
        const name = `${method} ${path}`
        expect(op.tags, name).toEqual(['iam'])
        expect(op.summary, name).toBeTruthy()
        if (PUBLIC.has(name)) {
          // Public, and saying so: an empty requirement, not a missing one.
          expect(op.security, name).toEqual([])
        } else {
          expect(op.security, name).toEqual([{ staffBearer: [] }])
          expect(op.responses, name).toHaveProperty('401')
          if (!path.endsWith('/logout')) expect(op.responses, name).toHaveProperty('403')
        }
        if (op.requestBody) expect(op.responses, name).toHaveProperty('400')
        if (path.includes('{id}')) expect(op.responses, name).toHaveProperty('404')
      }
    }
  })

  it('names the schemas as the source document does, with expires_at an integer on login and a date-time on refresh', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const schemas = doc.components.schemas
    for (const id of [
      'LoginRequest',
      'LoginResponse',
      'RefreshTokenRequest',
      'RefreshTokenResponse',
      'UserInfo',
      'CreateUserRequest',
      'UserRequest',
      'UserResponse',
      'UserListResponse',
      'CreatePermissionRequest',
      'UpdatePermissionRequest',
      'PermissionResponse',
      'PermissionListResponse',
      'SyncUserPermissionsRequest',
      'CreateRoleRequest',
      'UpdateRoleRequest',
      'RoleResponse',
      'RoleListResponse',
      'SyncRolePermissionsRequest',
      'PasswordRecoverRequest',
      'PasswordResetRequest',
      'SearchRequest',
      'PaginationMeta',
    ]) {
      expect(schemas, id).toHaveProperty(id)
    }
    expect(schemas.LoginResponse.properties.expires_at.type).toBe('integer')
    expect(schemas.RefreshTokenResponse.properties.expires_at).toMatchObject({ type: 'string', format: 'date-time' })
    expect(schemas.UserResponse.properties).not.toHaveProperty('password')
    expect(schemas.CreateUserRequest.additionalProperties).toBe(false)
    expect(schemas.ServiceHealth.properties.status).toMatchObject({ const: 'ok' })
    expect(schemas.ServiceInfo.required).toEqual(expect.arrayContaining(['name', 'version', 'started_at', 'uptime_seconds']))
    expect(schemas.UserInfo.properties.id).toMatchObject({ type: 'string', format: 'uuid' })
  })

  it('declares 500 on login and refresh, as the source document does, in the error envelope', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    for (const path of ['/iam/v1/auth/login', '/iam/v1/auth/refresh']) {
      const responses = doc.paths[path].post.responses
      expect(Object.keys(responses), path).toEqual(expect.arrayContaining(['200', '400', '401', '500', 'default']))
      expect(responses['500'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' })
      expect(responses['500'].description).toContain('internal_error')
    }
  })

  it('names the health and info answers ServiceHealth and ServiceInfo', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    expect(doc.paths['/iam/v1/health'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ServiceHealth' })
    expect(doc.paths['/iam/v1/info'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ServiceInfo' })
    expect(doc.paths['/iam/v1/health'].get.responses['503'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ServiceHealthDown' })
  })
})
