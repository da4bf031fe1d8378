import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { InventoryVariant } from './inventories.table.js'
import { findEventById } from './events.repo.js'
import { insertInventory } from './inventories.repo.js'
import type { CountedInventory } from '../inventory/held.js'

export type CreateInventoryOptions = {
  eventId: string
  /** `YYYY-MM-DD`. */
  date: string
  name: string
  /** Centavos per ticket. */
  price: number
  capacity: number
  variants?: InventoryVariant[] | undefined
  waiting_list?: boolean | undefined
  checkin_attention?: boolean | undefined
  actor: AuditActor
}

/** Adds a kind of ticket on a date to an event; nothing is sold or held yet. */
export const createInventory = (db: Db, { eventId, date, name, price, capacity, variants, waiting_list, checkin_attention, actor }: CreateInventoryOptions) =>
  db.transaction(async (tx): Promise<CountedInventory> => {
    const event = await findEventById(tx, eventId)
    if (!event) throw new AppError('not_found')
    const inventory = await insertInventory(tx, {
      sellerId: event.sellerId,
      eventId,
      date,
      name,
      price,
      capacity,
      variants: variants ?? [],
      waitingList: waiting_list ?? false,
      checkinAttention: checkin_attention ?? false,
    })
    await recordAudit(tx, actor, {
      action: 'adm.inventory.created',
      target: { type: 'inventory', id: inventory.id },
      sellerId: event.sellerId,
      data: { event_id: eventId, date, capacity, price },
    })
    return { ...inventory, held: 0, available: inventory.capacity }
  })
