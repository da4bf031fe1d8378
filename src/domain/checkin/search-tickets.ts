import type { Db } from '../../platform/db/database.js'
import { deviceList } from './device-lists.js'
import { searchTicketRows } from './list-tickets.repo.js'
import type { DeviceContext } from './scan-tickets.js'
import type { ScanTicketView } from './views.js'

/** How many tickets a search answers at most. */
const SEARCH_LIMIT = 50

/** Tickets of a list found by identifier or order id prefix, holder name or email. */
export async function searchTickets(db: Db, device: DeviceContext, options: { listId: string; q: string }): Promise<ScanTicketView[]> {
  return searchTicketRows(db, await deviceList(db, device, options.listId), options.q.trim(), SEARCH_LIMIT)
}
