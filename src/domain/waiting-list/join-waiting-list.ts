import { and, eq, ne } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { findVariant } from '../baskets/variants.js'
import { events } from '../catalog/events.table.js'
import { inventories } from '../catalog/inventories.table.js'
import { standingFor } from '../inventory/availability.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { sellers } from '../sellers/sellers.table.js'
import { toWaitingEntryView, type WaitingEntryView } from './waiting-entry-view.js'
import { findEntry, insertEntry, lockQueue, nudgeQueue } from './waiting-list.repo.js'

export type JoinWaitingListOptions = {
  sellerId: string
  /** The affiliate of `X-Affiliate-Code`: the entry is its, and so is the offer's sale. */
  affiliate: AffiliateContext | null
  inventoryId: string
  variant: string | null
  quantity: number
  email: string
  name: string | null
  customerId: string | null
  actor: AuditActor
}

/**
 * Puts a buyer at the back of an inventory's queue (docs/waiting-list.md). The inventory must be one the
 * caller could buy (else 404, like one that does not exist); the quantity at most the seller's
 * `waiting_list_max_quantity` and the inventory's capacity (else 400 validation_error on
 * `quantity`: one visitor asking for more than will ever come back at once would hold every later
 * entry back). Then, under the locks every hold and sale of the inventory takes
 * (sql/waiting_list_lock.sql), so that no hold, sale or serving slips between the judgement and the
 * entry: its list on, its date not passed and its event on sale (else 409 waiting_list_closed),
 * and no ticket of it on sale to the public (else 409 tickets_available: whatever the quantity
 * asked, while anyone waits the inventory sells nothing to the public, so a join while tickets
 * are on sale would stop their sale). What is on sale is the sale rule's answer
 * (sql/sale_standing.sql), the `available` the catalogue shows. One live entry per email (any
 * letter case) and inventory: 409 already_waiting.
 */
export async function joinWaitingList(db: Db, options: JoinWaitingListOptions): Promise<WaitingEntryView> {
  const { sellerId, inventoryId, quantity } = options
  const scope = options.affiliate?.eventIds ?? null
  const [inventory] = await db
    .select({
      waitingList: inventories.waitingList,
      variants: inventories.variants,
      capacity: inventories.capacity,
      maxQuantity: sellers.waitingListMaxQuantity,
    })
    .from(inventories)
    .innerJoin(events, eq(events.id, inventories.eventId))
    .innerJoin(sellers, eq(sellers.id, inventories.sellerId))
    .where(and(eq(inventories.id, inventoryId), eq(inventories.sellerId, sellerId), ne(events.status, 'draft')))
  const seen = await standingFor(db, sellerId, scope, inventoryId, quantity)
  if (!inventory || !seen || seen.standing === 'hidden') throw new AppError('not_found')
  if (options.variant !== null && !findVariant(inventory.variants, options.variant)) {
    throw new AppError('validation_error', { details: [{ path: 'variant', message: `inventory ${inventoryId} has no variant ${options.variant}` }] })
  }
  const most = Math.min(inventory.maxQuantity, inventory.capacity)
  if (quantity > most) {
    const why = most === inventory.capacity ? `the inventory's capacity (${most})` : `the seller's waiting_list_max_quantity (${most})`
    throw new AppError('validation_error', { details: [{ path: 'quantity', message: `must be at most ${most}, ${why}` }] })
  }
  if (!inventory.waitingList) throw new AppError('waiting_list_closed')

  const id = await db.transaction(async (tx) => {
    await lockQueue(tx, inventoryId)
    // Read after the locks are granted: every hold and sale committed before them counts.
    const standing = await standingFor(tx, sellerId, scope, inventoryId, quantity)
    if (!standing || standing.standing === 'hidden') throw new AppError('not_found')
    if (standing.standing === 'past' || standing.standing === 'not_on_sale') throw new AppError('waiting_list_closed')
    if (standing.ticketsLeft > 0) throw new AppError('tickets_available')
    const entry = await insertEntry(tx, {
      sellerId,
      affiliateId: options.affiliate?.id ?? null,
      inventoryId,
      variant: options.variant,
      quantity,
      email: options.email,
      name: options.name,
      customerId: options.customerId,
    })
    if (!entry) throw new AppError('already_waiting')
    // Tickets whose holds simply ran out (no change announced them) are free now: serve the queue soon.
    await nudgeQueue(tx, inventoryId)
    await recordAudit(tx, options.actor, {
      action: 'stf.waiting_list.joined',
      target: { type: 'waiting_entry', id: entry.id },
      sellerId,
      data: { inventory_id: inventoryId, quantity },
    })
    return entry.id
  })
  return toWaitingEntryView((await findEntry(db, sellerId, id))!)
}
