import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findList } from './lists.repo.js'
import { listScanRows } from './scans.repo.js'
import { toCheckinView, type CheckinView } from './views.js'

/** A page of a list's scans (its history), newest first. */
export async function listScans(
  db: Db,
  options: { listId: string; identifier?: string | undefined; successful?: boolean | undefined; page: number; limit: number },
): Promise<{ data: CheckinView[]; total: number }> {
  if (!(await findList(db, options.listId))) throw new AppError('not_found')
  const { rows, total } = await listScanRows(db, options.listId, options, options)
  return { data: rows.map(toCheckinView), total }
}
