import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { deletePermissionRow, findPermissionById } from './permissions.repo.js'

/** Deletes a permission and every grant of it, to users and roles. Built-in ones: 403. */
export const deletePermission = (db: Db, actor: StaffActor, id: string): Promise<void> =>
  db.transaction(async (tx) => {
    const permission = await findPermissionById(tx, id)
    if (!permission) throw new AppError('not_found')
    if (permission.builtIn) throw new AppError('forbidden', { message: 'Built-in permissions cannot be deleted' })
    await deletePermissionRow(tx, id)
    await recordAudit(tx, auditActorOf(actor), {
      action: 'iam.permission.deleted',
      target: { type: 'staff_permission', id },
      data: { name: permission.name },
    })
  })
