import type { Db } from '../../platform/db/database.js'
import { AppError, type ErrorDetail } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { findEventById } from '../catalog/events.repo.js'
import { ownedInventoryIds } from '../catalog/inventories.repo.js'
import { deleteListRow, findList, insertList, type ListRow, type ListValues, updateListRow } from './lists.repo.js'
import { toCheckinListView, type CheckinListView } from './views.js'

export type CheckinListInput = {
  name: string
  /** Absent or null: every inventory of the event. */
  inventoryIds?: string[] | null | undefined
  /** Absent or null: every variant, and the inventory's own tickets. */
  variants?: string[] | null | undefined
  allowMultipleEntries?: boolean | undefined
  allowEntryAfterExit?: boolean | undefined
}

/** The row values of a list of this event; an inventory of another event is 400, naming the entry. */
async function listValues(db: Db, eventId: string, input: CheckinListInput): Promise<ListValues> {
  const inventoryIds = input.inventoryIds ? [...new Set(input.inventoryIds)] : null
  if (inventoryIds) {
    const owned = await ownedInventoryIds(db, { eventId }, inventoryIds)
    const details: ErrorDetail[] = []
    input.inventoryIds!.forEach((id, index) => {
      if (!owned.has(id)) details.push({ path: `inventory_ids.${index}`, message: 'is not an inventory of this event' })
    })
    if (details.length > 0) throw new AppError('validation_error', { details })
  }
  return {
    name: input.name,
    inventoryIds,
    variants: input.variants ? [...new Set(input.variants)] : null,
    allowMultipleEntries: input.allowMultipleEntries ?? false,
    allowEntryAfterExit: input.allowEntryAfterExit ?? true,
  }
}

const sameSet = (a: readonly string[] | null, b: readonly string[] | null) =>
  a === null || b === null ? a === b : a.length === b.length && a.every((value) => b.includes(value))

/** Whether new values change which tickets a list admits, or how. */
const admitsOtherwise = (list: ListRow, values: ListValues) =>
  !sameSet(list.inventoryIds, values.inventoryIds ?? null) ||
  !sameSet(list.variants, values.variants ?? null) ||
  list.allowMultipleEntries !== values.allowMultipleEntries ||
  list.allowEntryAfterExit !== values.allowEntryAfterExit

/** Creates a check-in list for an event. */
export const createCheckinList = (db: Db, options: { eventId: string; input: CheckinListInput; actor: AuditActor }) =>
  db.transaction(async (tx): Promise<CheckinListView> => {
    const event = await findEventById(tx, options.eventId)
    if (!event) throw new AppError('not_found')
    const list = await insertList(tx, { sellerId: event.sellerId, eventId: event.id, ...(await listValues(tx, event.id, options.input)) })
    await recordAudit(tx, options.actor, {
      action: 'adm.checkin_list.created',
      target: { type: 'checkin_list', id: list.id },
      sellerId: event.sellerId,
      data: { event_id: event.id },
    })
    return toCheckinListView(list)
  })

/**
 * Replaces a list's settings (omitted ones take their defaults, as on creation); its scans stay.
 * A change of which tickets it admits, or how, restarts its feed (a new revision): offline
 * devices then load the list again instead of judging by the old one.
 */
export const updateCheckinList = (db: Db, options: { listId: string; input: CheckinListInput; actor: AuditActor }) =>
  db.transaction(async (tx): Promise<CheckinListView> => {
    const list = await findList(tx, options.listId)
    if (!list) throw new AppError('not_found')
    const values = await listValues(tx, list.eventId, options.input)
    const updated = await updateListRow(tx, list.id, values, admitsOtherwise(list, values))
    if (!updated) throw new AppError('not_found')
    await recordAudit(tx, options.actor, { action: 'adm.checkin_list.updated', target: { type: 'checkin_list', id: list.id }, sellerId: list.sellerId })
    return toCheckinListView(updated)
  })

/** Deletes a list and its history of scans; devices scanning against it get `invalid` from then on. */
export const deleteCheckinList = (db: Db, options: { listId: string; actor: AuditActor }) =>
  db.transaction(async (tx): Promise<void> => {
    const list = await deleteListRow(tx, options.listId)
    if (!list) throw new AppError('not_found')
    await recordAudit(tx, options.actor, {
      action: 'adm.checkin_list.deleted',
      target: { type: 'checkin_list', id: list.id },
      sellerId: list.sellerId,
      data: { event_id: list.eventId, name: list.name },
    })
  })
