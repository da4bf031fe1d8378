import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { findPermissionById, isPermissionNameTaken, updatePermissionRow, type PermissionRow } from './permissions.repo.js'

export type UpdatePermissionOptions = { name?: string | undefined; description?: string | undefined }

/**
 * Renames a permission or changes its description. Built-in permissions keep their name
 * (routes check it): 403. A name in use: 409 `already_exists`.
 */
export const updatePermission = (db: Db, actor: StaffActor, id: string, input: UpdatePermissionOptions): Promise<PermissionRow> =>
  db.transaction(async (tx) => {
    const existing = await findPermissionById(tx, id)
    if (!existing) throw new AppError('not_found')
    const renamed = input.name !== undefined && input.name !== existing.name
    if (renamed && existing.builtIn) throw new AppError('forbidden', { message: 'Built-in permissions cannot be renamed' })
    if (renamed && (await isPermissionNameTaken(tx, input.name!, id))) throw new AppError('already_exists')
    const permission = await updatePermissionRow(tx, id, input).catch((error: unknown) => {
      throw isUniqueViolation(error) ? new AppError('already_exists') : error
    })
    await recordAudit(tx, auditActorOf(actor), {
      action: 'iam.permission.updated',
      target: { type: 'staff_permission', id },
      data: { ...(renamed ? { name: { from: existing.name, to: input.name } } : { name: existing.name }), changed: Object.keys(input) },
    })
    return permission!
  })
