import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { createPermission } from '../domain/staff/create-permission.js'
import { deletePermission } from '../domain/staff/delete-permission.js'
import { getPermission } from '../domain/staff/get-permission.js'
import { searchPermissions } from '../domain/staff/search-permissions.js'
import { updatePermission } from '../domain/staff/update-permission.js'
import { listingRoutes } from './listing-routes.js'
import { requirePermission, staffActorOf } from './staff-auth.js'
import { errorResponses, ZIdParams } from '../platform/http/schemas.js'
import { secured, ZSearchRequest } from './common.schemas.js'
import { ZCreatePermissionRequest, ZPermission, ZPermissionList, ZUpdatePermissionRequest, presentPermission } from './permissions.schemas.js'

const BUILT_INS = ' The built-in permissions (`iam.*`, `adm.*` as listed in the API description) cannot be renamed or deleted: 403 `forbidden`.'

/** `/permissions`: the named capabilities routes check. */
export const permissionRoutes: FastifyPluginAsyncZod = async (app) => {
  const read = requirePermission('iam.permissions.read')
  const write = requirePermission('iam.permissions.write')

  app.post(
    '',
    secured(write, {
      operationId: 'createPermission',
      summary: 'Create permission',
      description: 'Needs `iam.permissions.write`. The new permission is granted to the built-in `admin` role at once. A name in use: 409 `already_exists`.',
      body: ZCreatePermissionRequest,
      response: { 201: ZPermission, ...errorResponses(400, 401, 403, 409) },
    }),
    async (request, reply) => reply.code(201).send(presentPermission(await createPermission(app.db, staffActorOf(request), request.body))),
  )

  await app.register(
    listingRoutes({
      noun: 'permissions',
      permission: 'iam.permissions.read',
      matches: '`q` matches name or description (any case).',
      searchRequest: ZSearchRequest,
      list: ZPermissionList,
      search: searchPermissions,
      present: presentPermission,
    }),
  )

  app.get(
    '/:id',
    secured(read, {
      operationId: 'getPermission',
      summary: 'Get permission by ID',
      description: 'Needs `iam.permissions.read`.',
      params: ZIdParams,
      response: { 200: ZPermission, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) => presentPermission(await getPermission(app.db, request.params.id)),
  )

  app.put(
    '/:id',
    secured(write, {
      operationId: 'updatePermission',
      summary: 'Update permission',
      description: `Needs \`iam.permissions.write\`. A name in use: 409 \`already_exists\`.${BUILT_INS}`,
      params: ZIdParams,
      body: ZUpdatePermissionRequest,
      response: { 200: ZPermission, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (request) => presentPermission(await updatePermission(app.db, staffActorOf(request), request.params.id, request.body)),
  )

  app.delete(
    '/:id',
    secured(write, {
      operationId: 'deletePermission',
      summary: 'Delete permission',
      description: `Needs \`iam.permissions.write\`. Every grant of it, to users and roles, goes with it.${BUILT_INS}`,
      params: ZIdParams,
      response: { 204: z.undefined().describe('Deleted'), ...errorResponses(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      await deletePermission(app.db, staffActorOf(request), request.params.id)
      return reply.code(204).send()
    },
  )
}
