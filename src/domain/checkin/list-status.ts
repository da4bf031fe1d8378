import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { listStatusRows } from './list-tickets.repo.js'
import { findList, type ListRow } from './lists.repo.js'

export type CheckinStatusView = {
  list_id: string
  tickets: number
  checked_in: number
  inside: number
  inventories: {
    inventory_id: string
    name: string
    date: string
    tickets: number
    checked_in: number
    variants: { name: string; tickets: number; checked_in: number }[]
  }[]
}

/** Valid tickets of a list (of one date, when given), checked in and inside now, in all and per inventory and variant. */
export async function getListStatus(db: Db, list: ListRow, date?: string): Promise<CheckinStatusView> {
  const status: CheckinStatusView = { list_id: list.id, tickets: 0, checked_in: 0, inside: 0, inventories: [] }
  for (const row of await listStatusRows(db, list, date)) {
    status.tickets += row.tickets
    status.checked_in += row.checked_in
    status.inside += row.inside
    let inventory = status.inventories.find((i) => i.inventory_id === row.inventory_id)
    if (!inventory) {
      inventory = { inventory_id: row.inventory_id, name: row.name, date: row.date, tickets: 0, checked_in: 0, variants: [] }
      status.inventories.push(inventory)
    }
    inventory.tickets += row.tickets
    inventory.checked_in += row.checked_in
    if (row.variant !== null) inventory.variants.push({ name: row.variant, tickets: row.tickets, checked_in: row.checked_in })
  }
  return status
}

/** A list's status by its id (the back office), or 404. */
export async function getListStatusById(db: Db, listId: string, date?: string): Promise<CheckinStatusView> {
  const list = await findList(db, listId)
  if (!list) throw new AppError('not_found')
  return getListStatus(db, list, date)
}
