import type { Db } from '../../platform/db/database.js'
import { searchRoleRows, withPermissions, type RoleWithPermissions } from './roles.repo.js'
import type { Page, SearchOptions } from './search.js'

/** A page of roles whose name or description contains `q` (any case), with permission names. */
export async function searchRoles(db: Db, options: SearchOptions): Promise<Page<RoleWithPermissions>> {
  const page = await searchRoleRows(db, options)
  return { rows: await withPermissions(db, page.rows), total: page.total }
}
