import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { findInventoryById } from '../catalog/inventories.repo.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import { lockInventories, type Seat } from '../inventory/inventory.repo.js'
import { announceSeatsChanged, readSeatStandings, writeSeatBlocks } from './seats.repo.js'

export type BlockSeatsOptions = { inventoryId: string; seats: readonly string[]; blocked: boolean; actor: AuditActor }

/**
 * Blocks seats of an inventory (never sold, not available) or unblocks them, under the
 * inventory's locks, those of every hold and sale (lockInventories): what is read next counts
 * every hold and sale committed before, and none commits until this ends. Seats the inventory
 * does not sell: 400 naming each; blocking a held or sold seat: 409 `seat_unavailable` with those
 * seats, and nothing changes. Blocking a blocked seat or unblocking a free one changes nothing.
 * `seats_blocked` stays the blocks' number; an unblock puts seats back on sale and says so (the
 * sold-out memories, the waiting list); either way the catalogue's cached answers are forgotten.
 */
export const blockSeats = (db: Db, { inventoryId, seats, blocked, actor }: BlockSeatsOptions): Promise<Seat[]> =>
  freeingTickets(db, async (tx, stock) => {
    const inventory = await findInventoryById(tx, inventoryId)
    if (!inventory) throw new AppError('not_found')
    await lockInventories(tx, inventory.sellerId, [inventory.id])
    const ids = [...new Set(seats)]
    const standing = await readSeatStandings(tx, inventory.id, ids)
    const known = new Set(standing.map((seat) => seat.id))
    const unknown = seats.flatMap((id, index) => (known.has(id) ? [] : [{ path: `seats.${index}`, message: `the inventory sells no seat "${id}"` }]))
    if (unknown.length > 0) throw new AppError('validation_error', { details: unknown.slice(0, 50) })
    if (blocked) {
      const unavailable = standing.filter((seat) => seat.status === 'held' || seat.status === 'sold').map((seat) => seat.id)
      if (unavailable.length > 0) {
        throw new AppError('seat_unavailable', { message: 'Held or sold seats cannot be blocked', details: { seats: unavailable } })
      }
    }
    await writeSeatBlocks(tx, inventory.id, ids, blocked)
    const freed = !blocked && standing.some((seat) => seat.status === 'blocked')
    await announceSeatsChanged(tx, inventory, freed)
    if (freed) stock.freed([inventory.id])
    await recordAudit(tx, actor, {
      action: blocked ? 'adm.inventory.seats_blocked' : 'adm.inventory.seats_unblocked',
      target: { type: 'inventory', id: inventory.id },
      sellerId: inventory.sellerId,
      data: { seats: ids },
    })
    return standing.map(({ id, zone, row, number, category }) => ({ id, zone, row, number, category }))
  })
