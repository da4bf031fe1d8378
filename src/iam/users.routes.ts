import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { addUserPermission } from '../domain/staff/add-user-permission.js'
import { createUser } from '../domain/staff/create-user.js'
import { deleteUser } from '../domain/staff/delete-user.js'
import { getUserPermissions } from '../domain/staff/get-user-permissions.js'
import { getUserRoles } from '../domain/staff/get-user-roles.js'
import { getUser } from '../domain/staff/get-user.js'
import { removeUserPermission } from '../domain/staff/remove-user-permission.js'
import { searchUsers } from '../domain/staff/search-users.js'
import { syncUserPermissions } from '../domain/staff/sync-user-permissions.js'
import { updateUser } from '../domain/staff/update-user.js'
import { listingRoutes } from './listing-routes.js'
import { requirePermission, staffActorOf, type StaffPrincipal } from './staff-auth.js'
import { errorResponses, ZIdParams } from '../platform/http/schemas.js'
import { secured, ZIdPermissionParams } from './common.schemas.js'
import { ZRoles, presentRole } from './roles.schemas.js'
import {
  ZCreateUserRequest,
  ZEffectivePermissions,
  ZSyncUserPermissionsRequest,
  ZUser,
  ZUserList,
  ZUserRequest,
  ZUserSearchRequest,
  presentEffectivePermission,
  presentUser,
} from './users.schemas.js'

// A user may always read itself, its roles and its permissions.
const isSelf = (request: FastifyRequest, staff: StaffPrincipal) => (request.params as { id?: unknown }).id === staff.id

const GUARDS =
  ' Rules: the caller must hold every permission the target user holds, and may grant only permissions it holds itself ' +
  '(403 `forbidden` otherwise); nobody deletes themselves; at least one user keeps the `admin` role.'

/** `/users`: staff users, their roles and permissions. */
export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  const _read = requirePermission('iam.users.read')
  const readOrSelf = requirePermission('iam.users.read', { unless: isSelf })
  const write = requirePermission('iam.users.write')

  app.post(
    '',
    secured(write, {
      operationId: 'createUser',
      summary: 'Create user',
      description: `Needs \`iam.users.write\`. Unknown role names: 400 naming them. Email in use (any case): 409 \`email_taken\`.${GUARDS}`,
      body: ZCreateUserRequest,
      response: { 201: ZUser, ...errorResponses(400, 401, 403, 409) },
    }),
    async (request, reply) => reply.code(201).send(presentUser(await createUser(app.db, staffActorOf(request), request.body))),
  )

  await app.register(
    listingRoutes({
      noun: 'users',
      permission: 'iam.users.read',
      matches: '`q` matches name or email (any case); `role` keeps holders of that role.',
      searchRequest: ZUserSearchRequest,
      list: ZUserList,
      search: searchUsers,
      present: presentUser,
    }),
  )

  app.get(
    '/:id',
    secured(readOrSelf, {
      operationId: 'getUser',
      summary: 'Get user by ID',
      description: 'Needs `iam.users.read`, except for the caller itself.',
      params: ZIdParams,
      response: { 200: ZUser, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) => presentUser(await getUser(app.db, request.params.id)),
  )

  app.put(
    '/:id',
    secured(write, {
      operationId: 'updateUser',
      summary: 'Update user',
      description: `Needs \`iam.users.write\`. Changes the fields given; \`roles\` replaces the roles; a new \`password\` revokes every session of the user.${GUARDS}`,
      params: ZIdParams,
      body: ZUserRequest,
      response: { 200: ZUser, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (request) => presentUser(await updateUser(app.db, staffActorOf(request), request.params.id, request.body)),
  )

  app.delete(
    '/:id',
    secured(write, {
      operationId: 'deleteUser',
      summary: 'Delete user',
      description: `Needs \`iam.users.write\`. Its grants and sessions go with it.${GUARDS}`,
      params: ZIdParams,
      response: { 204: z.undefined().describe('Deleted'), ...errorResponses(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      await deleteUser(app.db, staffActorOf(request), request.params.id)
      return reply.code(204).send()
    },
  )

  app.get(
    '/:id/roles',
    secured(readOrSelf, {
      operationId: 'getUserRoles',
      summary: 'Get user roles',
      description: 'Needs `iam.users.read`, except for the caller itself.',
      params: ZIdParams,
      response: { 200: ZRoles, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) => (await getUserRoles(app.db, request.params.id)).map(presentRole),
  )

  app.get(
    '/:id/permissions',
    secured(readOrSelf, {
      operationId: 'getUserPermissions',
      summary: 'Get user permissions',
      description:
        'Needs `iam.users.read`, except for the caller itself. The effective set: each permission says whether it is ' +
        "granted directly and which of the user's roles grant it.",
      params: ZIdParams,
      response: { 200: ZEffectivePermissions, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) => (await getUserPermissions(app.db, request.params.id)).map(presentEffectivePermission),
  )

  app.post(
    '/:id/permissions',
    secured(write, {
      operationId: 'syncUserPermissions',
      summary: 'Sync user permissions',
      description:
        'Needs `iam.users.write`. Replaces the permissions granted to the user directly (those of its roles stay) and answers ' +
        `the effective set. Unknown names: 400 naming them.${GUARDS}`,
      params: ZIdParams,
      body: ZSyncUserPermissionsRequest,
      response: { 200: ZEffectivePermissions, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) => (await syncUserPermissions(app.db, staffActorOf(request), request.params.id, request.body.permissions)).map(presentEffectivePermission),
  )

  app.put(
    '/:id/permissions/:permission_id',
    secured(write, {
      operationId: 'addUserPermission',
      summary: 'Add user permission',
      description: `Needs \`iam.users.write\`. Grants the permission directly; idempotent.${GUARDS}`,
      params: ZIdPermissionParams,
      response: { 204: z.undefined().describe('Granted'), ...errorResponses(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      await addUserPermission(app.db, staffActorOf(request), request.params.id, request.params.permission_id)
      return reply.code(204).send()
    },
  )

  app.delete(
    '/:id/permissions/:permission_id',
    secured(write, {
      operationId: 'removeUserPermission',
      summary: 'Remove user permission',
      description: `Needs \`iam.users.write\`. Withdraws a direct grant (a role granting it still does); idempotent.${GUARDS}`,
      params: ZIdPermissionParams,
      response: { 204: z.undefined().describe('Withdrawn'), ...errorResponses(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      await removeUserPermission(app.db, staffActorOf(request), request.params.id, request.params.permission_id)
      return reply.code(204).send()
    },
  )
}
