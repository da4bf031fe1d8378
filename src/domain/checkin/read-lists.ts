import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { UUID_PATTERN } from '../../platform/uuid.js'
import { listCheckinRows, listStatusRows, searchTickets, ticketFeed, type FeedPosition } from './checkins.repo.js'
import { deviceListRows, findList, type ListRow } from './lists.repo.js'
import type { DeviceContext } from './redeem-scans.js'
import { toCheckinView, type CheckinView, type ScanTicketView } from './views.js'

/** A list the device may scan (of its seller, on its events), or 404. */
export async function deviceList(db: Db, device: DeviceContext, listId: string): Promise<ListRow> {
  const [list] = await deviceListRows(db, device.sellerId, device.eventIds, [listId])
  if (!list) throw new AppError('not_found')
  return list
}

/** Where the feed starts: before every ticket. */
const START: FeedPosition = { xid: '0', id: '00000000-0000-0000-0000-000000000000' }

const encodeCursor = (position: FeedPosition) => Buffer.from(`${position.xid}:${position.id}`).toString('base64url')

function decodeCursor(cursor: string | undefined): FeedPosition {
  if (cursor === undefined) return START
  const [xid = '', id = ''] = Buffer.from(cursor, 'base64url').toString('latin1').split(':')
  if (!/^\d{1,20}$/.test(xid) || !UUID_PATTERN.test(id) || BigInt(xid) >= 2n ** 64n) {
    throw new AppError('validation_error', { details: [{ path: 'cursor', message: 'is not a cursor this feed gave' }] })
  }
  return { xid, id }
}

/**
 * A page of the list's tickets changed since `cursor` (all of them without one), voided ones
 * included, for a device that scans offline. `next_cursor` goes on from there; `has_more` says
 * whether to ask again at once.
 */
export async function readTicketFeed(db: Db, device: DeviceContext, options: { listId: string; cursor?: string | undefined; limit: number }) {
  const list = await deviceList(db, device, options.listId)
  const after = decodeCursor(options.cursor)
  const { tickets, last } = await ticketFeed(db, list, after, options.limit)
  return { data: tickets, next_cursor: encodeCursor(last ?? after), has_more: tickets.length === options.limit }
}

/** How many tickets a search answers at most. */
const SEARCH_LIMIT = 50

/** Tickets of a list found by identifier or order id prefix, holder name or email. */
export async function searchListTickets(db: Db, device: DeviceContext, options: { listId: string; q: string }): Promise<ScanTicketView[]> {
  return searchTickets(db, await deviceList(db, device, options.listId), options.q.trim(), SEARCH_LIMIT)
}

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

/** Valid tickets of a list, checked in and inside now, in all and per inventory and variant. */
export async function getCheckinStatus(db: Db, listId: string): Promise<CheckinStatusView> {
  const list = await findList(db, listId)
  if (!list) throw new AppError('not_found')
  const status: CheckinStatusView = { list_id: list.id, tickets: 0, checked_in: 0, inside: 0, inventories: [] }
  for (const row of await listStatusRows(db, list)) {
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

/** A page of a list's scans, newest first. */
export async function listCheckins(
  db: Db,
  options: { listId: string; identifier?: string | undefined; successful?: boolean | undefined; page: number; limit: number },
): Promise<{ data: CheckinView[]; total: number }> {
  if (!(await findList(db, options.listId))) throw new AppError('not_found')
  const { rows, total } = await listCheckinRows(db, options.listId, options, options)
  return { data: rows.map(toCheckinView), total }
}
