import type { Db } from '../../platform/db/database.js'
import type { Page, SearchOptions } from './search.js'
import { searchUserRows, type StaffUser } from './users.repo.js'

export type SearchUsersOptions = SearchOptions & { role?: string | undefined }

/** A page of users whose name or email contains `q` (any case), holding `role` if given. */
export const searchUsers = (db: Db, options: SearchUsersOptions): Promise<Page<StaffUser>> => searchUserRows(db, options)
