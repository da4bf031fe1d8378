import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { auditActorOf, type StaffActor } from './actor.js'
import { deleteRoleRow, findRoleById } from './roles.repo.js'

/** Deletes a role; its users lose it and what it granted at once. The built-in role: 403. */
export const deleteRole = (db: Db, actor: StaffActor, id: string): Promise<void> =>
  db.transaction(async (tx) => {
    const role = await findRoleById(tx, id)
    if (!role) throw new AppError('not_found')
    if (role.builtIn) throw new AppError('forbidden', { message: 'Built-in roles cannot be deleted' })
    await deleteRoleRow(tx, id)
    await recordAudit(tx, auditActorOf(actor), {
      action: 'iam.role.deleted',
      target: { type: 'staff_role', id },
      data: { name: role.name },
    })
  })
