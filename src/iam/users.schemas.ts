import { z } from 'zod'
import type { EffectivePermission, StaffUser } from '../domain/staff/users.repo.js'
import { iso, pageOf, ZInstant } from '../platform/http/schemas.js'
import { presentUserInfo } from './auth.schemas.js'
import { ZAccessName, ZSearchRequest, atLeastOneField } from './common.schemas.js'
import { ZPassword } from './password.schemas.js'

const ZName = z.string().trim().min(1).max(200)
const ZEmail = z.email().max(254)
const ZRoleNames = z.array(ZAccessName).max(100).describe('Role names; an unknown name is a 400 naming it')

export const ZUser = z
  .object({
    id: z.uuid(),
    name: z.string(),
    email: z.string(),
    roles: z.array(z.string()).describe('Role names'),
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'UserResponse' })

export const ZUserList = pageOf(ZUser).meta({ id: 'UserListResponse' })

export const ZCreateUserRequest = z
  .strictObject({ name: ZName, email: ZEmail, password: ZPassword, roles: ZRoleNames.optional() })
  .meta({ id: 'CreateUserRequest' })

export const ZUserRequest = z
  .strictObject({
    name: ZName.optional(),
    email: ZEmail.optional(),
    password: ZPassword.optional().describe('A new password; signs the user out of every session'),
    roles: ZRoleNames.optional().describe('Replaces the roles'),
  })
  .refine(atLeastOneField, 'give at least one field')
  .meta({ id: 'UserRequest' })

export const ZUserSearchRequest = ZSearchRequest.extend({
  role: ZAccessName.optional().describe('Only users holding this role'),
}).meta({ id: 'UserSearchRequest' })

export const ZSyncUserPermissionsRequest = z
  .strictObject({ permissions: z.array(ZAccessName).max(500).describe('Permission names granted directly; replaces the set') })
  .meta({ id: 'SyncUserPermissionsRequest' })

export const ZEffectivePermission = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    direct: z.boolean().describe('Granted to the user directly'),
    roles: z.array(z.string()).describe('Roles of the user that grant it'),
  })
  .meta({ id: 'EffectivePermission' })

export const ZEffectivePermissions = z.array(ZEffectivePermission)

export const presentUser = (user: StaffUser): z.infer<typeof ZUser> => ({
  ...presentUserInfo(user),
  created_at: iso(user.createdAt),
  updated_at: iso(user.updatedAt),
})

export const presentEffectivePermission = (p: EffectivePermission): z.infer<typeof ZEffectivePermission> => ({
  id: p.id,
  name: p.name,
  description: p.description,
  direct: p.direct,
  roles: p.roles,
})
