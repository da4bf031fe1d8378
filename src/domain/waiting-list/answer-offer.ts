import { hashOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { readBasketView, type BasketView } from '../baskets/basket-view.js'
import { findBasket, listBasketLines, renewBasket } from '../baskets/baskets.repo.js'
import { quantitiesByInventory } from '../baskets/variants.js'
import { takeTickets } from '../inventory/take-tickets.js'
import { runStatement } from '../../platform/db/transaction-ending-with.js'
import { endOfferHold, findEntry, lockEntryByToken, nudgeQueue, setEntry, type WaitingEntryRow } from './waiting-list.repo.js'
import { toWaitingEntryView, type WaitingEntryView } from './waiting-entry-view.js'

export type AnswerOfferOptions = {
  sellerId: string
  token: string
  tokenHmac: Buffer
  actor: AuditActor
}

/**
 * The offer an emailed token names, locked, while it may still be answered. The token alone names
 * it, whichever affiliate code the call carries: the emailed link goes to the seller's storefront.
 * A token of another seller, unknown, or of an offer already answered: 401 invalid_token; of an offer past its
 * `offer_expires_at` (expired by the sweep or not yet): 410 offer_expired. The lock makes a token
 * single use: of two answers at once, the second finds the offer answered.
 */
async function lockLiveOffer(tx: Db, options: AnswerOfferOptions): Promise<WaitingEntryRow> {
  const entry = await lockEntryByToken(tx, options.sellerId, hashOpaqueToken(options.tokenHmac, options.token))
  if (entry?.status === 'expired' || (entry?.status === 'offered' && entry.lapsed)) throw new AppError('offer_expired')
  if (entry?.status !== 'offered') throw new AppError('invalid_token')
  return entry
}

/**
 * Accepts an offer (docs/waiting-list.md): the offer's basket, which holds the tickets, becomes the buyer's
 * (linked to the customer of `X-Customer-Token`, if sent; the affiliate's, as its `affiliate_code`
 * says, when the entry was made under one), held for the seller's usual `basket_ttl_seconds` from
 * now, and is checked out like any other. The renewed hold is judged under the inventory locks
 * like every renewal (`takeTickets`): an offer that lapsed while this call began, and whose
 * tickets someone else holds since, answers 410 offer_expired. If the basket then expires unpaid,
 * its tickets go back to the queue like any other hold's.
 */
export async function acceptOffer(db: Db, options: AnswerOfferOptions & { ttlSeconds: number; customerId: string | null }): Promise<BasketView> {
  const basketId = await db.transaction(async (tx) => {
    const entry = await lockLiveOffer(tx, options)
    if (!entry.basketId) throw new AppError('invalid_token')
    await setEntry(tx, entry.id, { status: 'accepted' })
    await renewBasket(tx, entry.basketId, options.ttlSeconds, options.customerId ? { customerId: options.customerId } : {})
    const wanted = quantitiesByInventory(await listBasketLines(tx, entry.basketId))
    try {
      await runStatement(tx, takeTickets({ sellerId: options.sellerId, scope: null, basketId: entry.basketId, wanted, added: new Map(), sell: false }))
    } catch (error) {
      throw error instanceof AppError && error.code === 'insufficient_inventory' ? new AppError('offer_expired') : error
    }
    await recordAudit(tx, options.actor, {
      action: 'stf.waiting_list.accepted',
      target: { type: 'waiting_entry', id: entry.id },
      sellerId: options.sellerId,
      data: { basket_id: entry.basketId },
    })
    return entry.basketId
  })
  const basket = await findBasket(db, options.sellerId, basketId)
  return readBasketView(db, basket!, null)
}

/** Declines an offer (docs/waiting-list.md): the entry is `declined` and its tickets pass on at once. */
export async function declineOffer(db: Db, options: AnswerOfferOptions): Promise<WaitingEntryView> {
  const entryId = await db.transaction(async (tx) => {
    const entry = await lockLiveOffer(tx, options)
    await setEntry(tx, entry.id, { status: 'declined' })
    await endOfferHold(tx, entry.basketId)
    await nudgeQueue(tx, entry.inventoryId)
    await recordAudit(tx, options.actor, {
      action: 'stf.waiting_list.declined',
      target: { type: 'waiting_entry', id: entry.id },
      sellerId: options.sellerId,
    })
    return entry.id
  })
  return toWaitingEntryView((await findEntry(db, options.sellerId, entryId))!)
}
