import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { UUID_PATTERN } from '../../platform/uuid.js'
import { deviceList } from './device-lists.js'
import { type FeedPosition, ticketFeedRows } from './list-tickets.repo.js'
import type { DeviceContext } from './scan-tickets.js'
import type { ScanTicketView } from './views.js'

/** Where the feed starts: before every ticket. */
const START: FeedPosition = { xid: '0', id: '00000000-0000-0000-0000-000000000000' }

/** A cursor: the list's revision it was read under, and the position in the feed. */
type Cursor = { revision: number; position: FeedPosition }

const encodeCursor = ({ revision, position }: Cursor) => Buffer.from(`${revision}:${position.xid}:${position.id}`).toString('base64url')

/** A cursor as given; one of an earlier format (no revision) reads as revision 0, so its feed starts over. */
function decodeCursor(cursor: string): Cursor {
  const parts = Buffer.from(cursor, 'base64url').toString('latin1').split(':')
  const [revision = '', xid = '', id = ''] = parts.length === 2 ? ['0', ...parts] : parts
  if (parts.length > 3 || !/^\d{1,9}$/.test(revision) || !/^\d{1,20}$/.test(xid) || !UUID_PATTERN.test(id) || BigInt(xid) >= 2n ** 64n) {
    throw new AppError('validation_error', { details: [{ path: 'cursor', message: 'is not a cursor this feed gave' }] })
  }
  return { revision: Number(revision), position: { xid, id } }
}

export type TicketFeedPage = { data: ScanTicketView[]; next_cursor: string; has_more: boolean; reset: boolean }

/**
 * A page of the list's tickets changed since `cursor` (all of them without one), voided ones
 * included, for a device that scans offline. `next_cursor` goes on from there; `has_more` says
 * whether to ask again at once. A cursor read under an earlier revision of the list (its
 * inventories, variants or rules changed since) starts over, with `reset`: the device drops what
 * it kept of the list and keeps what comes from here.
 */
export async function readTicketFeed(
  db: Db,
  device: DeviceContext,
  options: { listId: string; cursor?: string | undefined; limit: number },
): Promise<TicketFeedPage> {
  const list = await deviceList(db, device, options.listId)
  const given = options.cursor === undefined ? undefined : decodeCursor(options.cursor)
  const reset = given?.revision !== list.revision
  const after = reset ? START : given.position
  const { tickets, last } = await ticketFeedRows(db, list, after, options.limit)
  return { data: tickets, next_cursor: encodeCursor({ revision: list.revision, position: last ?? after }), has_more: tickets.length === options.limit, reset }
}
