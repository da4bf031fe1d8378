import { z } from 'zod'
import type { PermissionRow } from '../domain/staff/permissions.repo.js'
import { iso, pageOf, ZInstant } from '../platform/http/schemas.js'
import { ZAccessName, ZDescription, atLeastOneField } from './common.schemas.js'

export const ZPermission = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'PermissionResponse' })

export const ZPermissionList = pageOf(ZPermission).meta({ id: 'PermissionListResponse' })
export const ZPermissions = z.array(ZPermission)

export const ZCreatePermissionRequest = z.strictObject({ name: ZAccessName, description: ZDescription.optional() }).meta({ id: 'CreatePermissionRequest' })

export const ZUpdatePermissionRequest = z
  .strictObject({ name: ZAccessName.optional(), description: ZDescription.optional() })
  .refine(atLeastOneField, 'give at least one field')
  .meta({ id: 'UpdatePermissionRequest' })

export const presentPermission = (p: PermissionRow): z.infer<typeof ZPermission> => ({
  id: p.id,
  name: p.name,
  description: p.description,
  created_at: iso(p.createdAt),
  updated_at: iso(p.updatedAt),
})
