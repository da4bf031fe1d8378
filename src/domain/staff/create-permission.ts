import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { insertPermission, isPermissionNameTaken, type PermissionRow } from './permissions.repo.js'
import { grantToBuiltInRoles } from './roles.repo.js'

export type CreatePermissionOptions = { name: string; description?: string | undefined }

/**
 * Creates a permission, granted at once to the built-in `admin` role (which holds every
 * permission, so that someone may grant it). A name in use: 409 `already_exists`.
 */
export const createPermission = (db: Db, actor: StaffActor, input: CreatePermissionOptions): Promise<PermissionRow> =>
  db.transaction(async (tx) => {
    if (await isPermissionNameTaken(tx, input.name)) throw new AppError('already_exists')
    const permission = await insertPermission(tx, { name: input.name, description: input.description ?? '' }).catch((error: unknown) => {
      throw isUniqueViolation(error) ? new AppError('already_exists') : error
    })
    await grantToBuiltInRoles(tx, permission.id)
    await recordAudit(tx, auditActorOf(actor), {
      action: 'iam.permission.created',
      target: { type: 'staff_permission', id: permission.id },
      data: { name: permission.name },
    })
    return permission
  })
