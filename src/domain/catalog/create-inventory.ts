import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { InventoryVariant } from './inventories.table.js'
import { findEventById } from './events.repo.js'
import { insertInventory } from './inventories.repo.js'
import { checkShowTimes } from './show-times.js'
import type { CountedInventory } from '../inventory/held.js'
import { checkSeating, type InventorySeating } from '../seating/inventory-seating.js'

export type CreateInventoryOptions = {
  eventId: string
  /** `YYYY-MM-DD`. */
  date: string
  name: string
  /** Centavos per ticket. */
  price: number
  /** Required unless `seating` gives it (its category's seats). */
  capacity?: number | undefined
  /** Reserved seating: the inventory sells exactly this category's seats (docs/seating.md). */
  seating?: InventorySeating | null | undefined
  variants?: InventoryVariant[] | undefined
  waiting_list?: boolean | undefined
  checkin_attention?: boolean | undefined
  /** Its tickets may be given away (docs/transfers.md), until `transfer_closes_hours` before their date; defaults true and 0. */
  transferable?: boolean | undefined
  transfer_closes_hours?: number | undefined
  /** The show's start and its doors on `date`, `HH:MM` on the seller's clock; absent or null: not said. */
  time?: string | null | undefined
  doors_time?: string | null | undefined
  actor: AuditActor
}

/** Adds a kind of ticket on a date to an event; nothing is sold or held yet. */
export const createInventory = (db: Db, { eventId, date, name, price, variants, waiting_list, checkin_attention, actor, ...options }: CreateInventoryOptions) =>
  db.transaction(async (tx): Promise<CountedInventory> => {
    const { time, doorsTime } = checkShowTimes({ time: null, doorsTime: null }, options)
    const event = await findEventById(tx, eventId)
    if (!event) throw new AppError('not_found')
    const seating = options.seating ? await checkSeating(tx, { sellerId: event.sellerId, eventId, date, seating: options.seating }) : undefined
    const capacity = seating?.capacity ?? options.capacity ?? 0
    const inventory = await insertInventory(tx, {
      sellerId: event.sellerId,
      eventId,
      date,
      name,
      price,
      capacity,
      seatingPlanId: seating?.planId ?? null,
      seatingCategory: seating?.category ?? null,
      variants: variants ?? [],
      waitingList: waiting_list ?? false,
      checkinAttention: checkin_attention ?? false,
      transferable: options.transferable ?? true,
      transferClosesHours: options.transfer_closes_hours ?? 0,
      time,
      doorsTime,
    })
    await recordAudit(tx, actor, {
      action: 'adm.inventory.created',
      target: { type: 'inventory', id: inventory.id },
      sellerId: event.sellerId,
      data: { event_id: eventId, date, capacity, price, ...(seating ? { seating: options.seating } : {}) },
    })
    return { ...inventory, held: 0, available: inventory.capacity }
  })
