import type { Db } from '../../platform/db/database.js'
import { ADMIN_ROLE, BUILT_IN_PERMISSIONS } from './builtins.js'
import { upsertBuiltInPermissions } from './permissions.repo.js'
import { grantEveryPermission, upsertBuiltInRole } from './roles.repo.js'

/**
 * Restores the built-in permissions and the `admin` role holding every permission.
 * Idempotent and safe when several processes start at once; run on every start, after
 * migrations.
 */
export const ensureBuiltins = (db: Db): Promise<void> =>
  db.transaction(async (tx) => {
    await upsertBuiltInPermissions(tx, BUILT_IN_PERMISSIONS)
    const adminId = await upsertBuiltInRole(tx, ADMIN_ROLE)
    await grantEveryPermission(tx, adminId)
  })
