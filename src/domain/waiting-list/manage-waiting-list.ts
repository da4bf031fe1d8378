import type { Db } from '../../platform/db/database.js'
import type { Paging } from '../../platform/db/paging.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { findInventoryById } from '../catalog/inventories.repo.js'
import { toWaitingEntryView, type WaitingEntryView } from './waiting-entry-view.js'
import type { WaitingEntryStatus } from './waiting-list.table.js'
import { findEntry, listQueue, lockEntry, nudgeQueue, setEntry } from './waiting-list.repo.js'

/** An inventory's waiting list in serving order (the back office); an unknown inventory: 404. */
export async function listWaitingList(db: Db, options: Paging & { inventoryId: string; status?: WaitingEntryStatus | undefined }) {
  if (!(await findInventoryById(db, options.inventoryId))) throw new AppError('not_found')
  const { rows, total } = await listQueue(db, options.inventoryId, options.status, options)
  return { rows: rows.map(toWaitingEntryView), total }
}

/** Moves an entry in its queue (higher priority is served first); the queue is served again at once. */
export async function setEntryPriority(db: Db, options: { entryId: string; priority: number; actor: AuditActor }): Promise<WaitingEntryView> {
  await db.transaction(async (tx) => {
    const entry = await lockEntry(tx, null, options.entryId)
    if (!entry) throw new AppError('not_found')
    if (entry.priority === options.priority) return
    await setEntry(tx, entry.id, { priority: options.priority })
    await nudgeQueue(tx, entry.inventoryId)
    await recordAudit(tx, options.actor, {
      action: 'adm.waiting_list.priority_changed',
      target: { type: 'waiting_entry', id: entry.id },
      sellerId: entry.sellerId,
      data: { priority: { from: entry.priority, to: options.priority } },
    })
  })
  return toWaitingEntryView((await findEntry(db, null, options.entryId))!)
}
