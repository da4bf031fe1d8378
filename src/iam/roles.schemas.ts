import { z } from 'zod'
import type { RoleWithPermissions } from '../domain/staff/roles.repo.js'
import { iso, pageOf, ZInstant } from '../platform/http/schemas.js'
import { ZAccessName, ZDescription, atLeastOneField } from './common.schemas.js'

const ZPermissionNames = z.array(ZAccessName).max(500).describe('Permission names; an unknown name is a 400 naming it')

export const ZRole = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    permissions: z.array(z.string()).describe('Permission names'),
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'RoleResponse' })

export const ZRoleList = pageOf(ZRole).meta({ id: 'RoleListResponse' })
export const ZRoles = z.array(ZRole)

export const ZCreateRoleRequest = z
  .strictObject({ name: ZAccessName, description: ZDescription.optional(), permissions: ZPermissionNames.optional() })
  .meta({ id: 'CreateRoleRequest' })

export const ZUpdateRoleRequest = z
  .strictObject({
    name: ZAccessName.optional(),
    description: ZDescription.optional(),
    permissions: ZPermissionNames.optional().describe('Replaces the permissions'),
  })
  .refine(atLeastOneField, 'give at least one field')
  .meta({ id: 'UpdateRoleRequest' })

export const ZSyncRolePermissionsRequest = z
  .strictObject({ permissions: ZPermissionNames.describe('Replaces the set') })
  .meta({ id: 'SyncRolePermissionsRequest' })

export const presentRole = (role: RoleWithPermissions): z.infer<typeof ZRole> => ({
  id: role.id,
  name: role.name,
  description: role.description,
  permissions: role.permissions,
  created_at: iso(role.createdAt),
  updated_at: iso(role.updatedAt),
})
