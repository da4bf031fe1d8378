import type { Db } from '../../platform/db/database.js'
import { searchPermissionRows, type PermissionRow } from './permissions.repo.js'
import type { Page, SearchOptions } from './search.js'

/** A page of permissions whose name or description contains `q` (any case). */
export const searchPermissions = (db: Db, options: SearchOptions): Promise<Page<PermissionRow>> => searchPermissionRows(db, options)
