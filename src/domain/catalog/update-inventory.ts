import type { AuditActor } from '../audit/record-audit.js'
import { saveChanges } from '../audit/save-changes.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { markInventoryTicketsChanged } from '../checkin/list-tickets.repo.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import { heldQuantities, withCounts, type CountedInventory } from '../inventory/held.js'
import type { InventoryVariant } from './inventories.table.js'
import { lockInventoryById, updateInventoryRow, type NewInventoryRow } from './inventories.repo.js'
import { checkShowTimes } from './show-times.js'
import { eq } from 'drizzle-orm'
import { seatBlocks } from '../seating/seating.table.js'
import { checkSeating, seatingInUse, seatingOf, type InventorySeating } from '../seating/inventory-seating.js'

export type UpdateInventoryOptions = {
  inventoryId: string
  date?: string | undefined
  name?: string | undefined
  price?: number | undefined
  /** Never below the tickets already sold plus those held by open baskets (409 `insufficient_inventory`). */
  capacity?: number | undefined
  /** Replaces the list. */
  variants?: InventoryVariant[] | undefined
  /** Off stops new joins; entries already waiting are still served. */
  waiting_list?: boolean | undefined
  /** The gate checks something when it admits these tickets. */
  checkin_attention?: boolean | undefined
  /** Whether, and until how many hours before their date, its tickets may be given away (docs/transfers.md). */
  transferable?: boolean | undefined
  transfer_closes_hours?: number | undefined
  /** Reserved seating (docs/seating.md); null: unseated. Fixed once any of its tickets was held or sold (409 seating_conflict). */
  seating?: InventorySeating | null | undefined
  /** The show's start and its doors on its date (`HH:MM`, the seller's clock); null: not said. Doors never after the start. */
  time?: string | null | undefined
  doors_time?: string | null | undefined
  actor: AuditActor
}

/**
 * Changes an inventory. Its tickets move with its date and its doors: the gates' window of entry
 * and counts follow, and the scanners' feed returns them. The row is locked before sold and held are read, and whatever sells
 * or holds its tickets locks it too, so no basket can slip in between the check and the update.
 * A price change applies to baskets priced from now on.
 */
export const updateInventory = (db: Db, options: UpdateInventoryOptions) =>
  freeingTickets(db, async (tx, stock): Promise<CountedInventory> => {
    const current = await lockInventoryById(tx, options.inventoryId)
    if (!current) throw new AppError('not_found')
    const held = (await heldQuantities(tx, [current.id])).get(current.id) ?? 0
    if (options.capacity !== undefined && options.capacity < current.sold + held) {
      throw new AppError('insufficient_inventory', {
        message: `Capacity cannot go below the ${current.sold + held} tickets already sold (${current.sold}) or held (${held})`,
      })
    }
    const values: Partial<NewInventoryRow> = {}
    const { time, doorsTime } = checkShowTimes(current, options)
    const seated = current.seatingPlanId !== null
    if (options.capacity !== undefined && seated && options.seating !== null) {
      throw new AppError('validation_error', {
        details: [{ path: 'capacity', message: 'a seated inventory sells its category’s seats: its capacity is their number' }],
      })
    }
    const seatingChanges =
      options.seating !== undefined &&
      (options.seating === null ? seated : options.seating.plan_id !== current.seatingPlanId || options.seating.category !== current.seatingCategory)
    if (seatingChanges && (await seatingInUse(tx, current.id))) {
      throw new AppError('seating_conflict', { message: 'Its tickets were held or sold already: its seating cannot change' })
    }
    const seating = options.seating === undefined ? seatingOf(current) : options.seating
    const date = options.date ?? current.date
    if (seating && (seatingChanges || date !== current.date)) {
      const checked = await checkSeating(tx, { sellerId: current.sellerId, eventId: current.eventId, date, inventoryId: current.id, seating })
      if (seatingChanges) Object.assign(values, { seatingPlanId: checked.planId, seatingCategory: checked.category, capacity: checked.capacity })
    }
    if (seatingChanges && options.seating === null) Object.assign(values, { seatingPlanId: null, seatingCategory: null })
    // Blocks are seats of the seating it had.
    if (seatingChanges) {
      await tx.delete(seatBlocks).where(eq(seatBlocks.inventoryId, current.id))
      values.seatsBlocked = 0
    }
    if (options.date !== undefined && options.date !== current.date) values.date = options.date
    if (options.name !== undefined && options.name !== current.name) values.name = options.name
    if (options.price !== undefined && options.price !== current.price) values.price = options.price
    if (options.capacity !== undefined && options.capacity !== current.capacity) values.capacity = options.capacity
    if (options.variants !== undefined) values.variants = options.variants
    if (options.waiting_list !== undefined && options.waiting_list !== current.waitingList) values.waitingList = options.waiting_list
    if (options.checkin_attention !== undefined && options.checkin_attention !== current.checkinAttention) values.checkinAttention = options.checkin_attention
    if (options.transferable !== undefined && options.transferable !== current.transferable) values.transferable = options.transferable
    if (options.transfer_closes_hours !== undefined && options.transfer_closes_hours !== current.transferClosesHours) {
      values.transferClosesHours = options.transfer_closes_hours
    }
    if (time !== current.time) values.time = time
    if (doorsTime !== current.doorsTime) values.doorsTime = doorsTime
    const inventory = await saveChanges(tx, {
      current,
      values,
      update: updateInventoryRow,
      actor: options.actor,
      action: 'adm.inventory.updated',
      target: 'inventory',
      data: values.capacity !== undefined ? { capacity: { from: current.capacity, to: values.capacity } } : {},
    })
    // The gates judge its tickets by its date, doors and attention, and show its time: the scanners' feed returns them.
    const gateChange = [values.date, values.checkinAttention, values.variants, values.time, values.doorsTime].some((value) => value !== undefined)
    if (gateChange) await markInventoryTicketsChanged(tx, current.id)
    // A larger capacity sells more.
    if (values.capacity !== undefined) stock.freed([current.id])
    const [counted] = await withCounts(tx, [inventory])
    return counted!
  })
