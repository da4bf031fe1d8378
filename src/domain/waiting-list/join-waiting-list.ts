import { and, eq, ne } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { findVariant } from '../baskets/variants.js'
import { events } from '../catalog/events.table.js'
import { inventories } from '../catalog/inventories.table.js'
import { standingFor } from '../inventory/availability.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { toWaitingEntryView, type WaitingEntryView } from './waiting-entry-view.js'
import { findEntry, insertEntry, nudgeQueue } from './waiting-list.repo.js'

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
 * Puts a buyer at the back of an inventory's queue (API.md 7.6). The inventory must be one the
 * caller could buy (else 404, like one that does not exist), with its list on, its date not
 * passed and its event on sale (else 409 waiting_list_closed), and the quantity must not be for
 * sale now to whoever asks (else 409 tickets_available): the sale rule (sql/sale_standing.sql)
 * says so, and while anyone waits it sells nothing to the public. One live entry per email
 * (any letter case) and inventory: 409 already_waiting.
 */
export async function joinWaitingList(db: Db, options: JoinWaitingListOptions): Promise<WaitingEntryView> {
  const { sellerId, inventoryId } = options
  const [inventory] = await db
    .select({ waitingList: inventories.waitingList, variants: inventories.variants })
    .from(inventories)
    .innerJoin(events, eq(events.id, inventories.eventId))
    .where(and(eq(inventories.id, inventoryId), eq(inventories.sellerId, sellerId), ne(events.status, 'draft')))
  const standing = await standingFor(db, sellerId, options.affiliate?.eventIds ?? null, inventoryId, options.quantity)
  if (!inventory || !standing || standing.standing === 'hidden') throw new AppError('not_found')
  if (options.variant !== null && !findVariant(inventory.variants, options.variant)) {
    throw new AppError('validation_error', { details: [{ path: 'variant', message: `inventory ${inventoryId} has no variant ${options.variant}` }] })
  }
  if (!inventory.waitingList || standing.standing === 'past' || standing.standing === 'not_on_sale') throw new AppError('waiting_list_closed')
  if (standing.fits) throw new AppError('tickets_available')

  const id = await db.transaction(async (tx) => {
    const entry = await insertEntry(tx, {
      sellerId,
      affiliateId: options.affiliate?.id ?? null,
      inventoryId,
      variant: options.variant,
      quantity: options.quantity,
      email: options.email,
      name: options.name,
      customerId: options.customerId,
    })
    if (!entry) throw new AppError('already_waiting')
    // Tickets freed while this buyer was being judged found nobody waiting: serve the queue now.
    await nudgeQueue(tx, inventoryId)
    await recordAudit(tx, options.actor, {
      action: 'stf.waiting_list.joined',
      target: { type: 'waiting_entry', id: entry.id },
      sellerId,
      data: { inventory_id: inventoryId, quantity: options.quantity },
    })
    return entry.id
  })
  return toWaitingEntryView((await findEntry(db, sellerId, id))!)
}
