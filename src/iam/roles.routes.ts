import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { addRolePermission } from '../domain/staff/add-role-permission.js'
import { createRole } from '../domain/staff/create-role.js'
import { deleteRole } from '../domain/staff/delete-role.js'
import { getRolePermissions } from '../domain/staff/get-role-permissions.js'
import { getRole } from '../domain/staff/get-role.js'
import { removeRolePermission } from '../domain/staff/remove-role-permission.js'
import { searchRoles } from '../domain/staff/search-roles.js'
import { syncRolePermissions } from '../domain/staff/sync-role-permissions.js'
import { updateRole } from '../domain/staff/update-role.js'
import { listingRoutes } from './listing-routes.js'
import { requirePermission, staffActorOf } from './staff-auth.js'
import { errorResponses, ZIdParams } from '../platform/http/schemas.js'
import { secured, ZIdPermissionParams, ZSearchRequest } from './common.schemas.js'
import { ZPermissions, presentPermission } from './permissions.schemas.js'
import { ZCreateRoleRequest, ZRole, ZRoleList, ZSyncRolePermissionsRequest, ZUpdateRoleRequest, presentRole } from './roles.schemas.js'

const GUARDS =
  ' Rules: a caller may add only permissions it holds itself (403 `forbidden`); the built-in `admin` role holds every ' +
  'permission (each new one is granted to it) and cannot be renamed, deleted or lose a permission (403 `forbidden`).'

/** `/roles`: named sets of permissions, and their permissions. */
export const roleRoutes: FastifyPluginAsyncZod = async (app) => {
  const read = requirePermission('iam.roles.read')
  const write = requirePermission('iam.roles.write')

  app.post(
    '',
    secured(write, {
      operationId: 'createRole',
      summary: 'Create role',
      description: `Needs \`iam.roles.write\`. Unknown permission names: 400 naming them. A name in use: 409 \`already_exists\`.${GUARDS}`,
      body: ZCreateRoleRequest,
      response: { 201: ZRole, ...errorResponses(400, 401, 403, 409) },
    }),
    async (request, reply) => reply.code(201).send(presentRole(await createRole(app.db, staffActorOf(request), request.body))),
  )

  await app.register(
    listingRoutes({
      noun: 'roles',
      permission: 'iam.roles.read',
      matches: '`q` matches name or description (any case).',
      searchRequest: ZSearchRequest,
      list: ZRoleList,
      search: searchRoles,
      present: presentRole,
    }),
  )

  app.get(
    '/:id',
    secured(read, {
      operationId: 'getRole',
      summary: 'Get role by ID',
      description: 'Needs `iam.roles.read`.',
      params: ZIdParams,
      response: { 200: ZRole, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) => presentRole(await getRole(app.db, request.params.id)),
  )

  app.put(
    '/:id',
    secured(write, {
      operationId: 'updateRole',
      summary: 'Update role',
      description: `Needs \`iam.roles.write\`. Changes the fields given; \`permissions\` replaces the set.${GUARDS}`,
      params: ZIdParams,
      body: ZUpdateRoleRequest,
      response: { 200: ZRole, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (request) => presentRole(await updateRole(app.db, staffActorOf(request), request.params.id, request.body)),
  )

  app.delete(
    '/:id',
    secured(write, {
      operationId: 'deleteRole',
      summary: 'Delete role',
      description: `Needs \`iam.roles.write\`. Its users lose it, and what it granted, at once.${GUARDS}`,
      params: ZIdParams,
      response: { 204: z.undefined().describe('Deleted'), ...errorResponses(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      await deleteRole(app.db, staffActorOf(request), request.params.id)
      return reply.code(204).send()
    },
  )

  app.get(
    '/:id/permissions',
    secured(read, {
      operationId: 'getRolePermissions',
      summary: 'Get role permissions',
      description: 'Needs `iam.roles.read`. Sorted by name.',
      params: ZIdParams,
      response: { 200: ZPermissions, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) => (await getRolePermissions(app.db, request.params.id)).map(presentPermission),
  )

  app.post(
    '/:id/permissions',
    secured(write, {
      operationId: 'syncRolePermissions',
      summary: 'Sync role permissions',
      description: `Needs \`iam.roles.write\`. Replaces the role's permissions and answers them. Unknown names: 400 naming them.${GUARDS}`,
      params: ZIdParams,
      body: ZSyncRolePermissionsRequest,
      response: { 200: ZPermissions, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) => (await syncRolePermissions(app.db, staffActorOf(request), request.params.id, request.body.permissions)).map(presentPermission),
  )

  app.put(
    '/:id/permissions/:permission_id',
    secured(write, {
      operationId: 'addRolePermission',
      summary: 'Add role permission',
      description: `Needs \`iam.roles.write\`. Idempotent.${GUARDS}`,
      params: ZIdPermissionParams,
      response: { 204: z.undefined().describe('Added'), ...errorResponses(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      await addRolePermission(app.db, staffActorOf(request), request.params.id, request.params.permission_id)
      return reply.code(204).send()
    },
  )

  app.delete(
    '/:id/permissions/:permission_id',
    secured(write, {
      operationId: 'removeRolePermission',
      summary: 'Remove role permission',
      description: `Needs \`iam.roles.write\`. Idempotent.${GUARDS}`,
      params: ZIdPermissionParams,
      response: { 204: z.undefined().describe('Removed'), ...errorResponses(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      await removeRolePermission(app.db, staffActorOf(request), request.params.id, request.params.permission_id)
      return reply.code(204).send()
    },
  )
}
