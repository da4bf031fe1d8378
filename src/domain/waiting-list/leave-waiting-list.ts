import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { endOfferHold, findEntry, lockEntry, nudgeQueue, setEntry } from './waiting-list.repo.js'

/**
 * An entry made under an affiliate code answers only to that code, one made without a code only
 * without one (as a basket does); otherwise, like another seller's, it does not exist.
 */
export function assertEntryAccess<T extends { affiliateId: string | null }>(entry: T | undefined, affiliate: AffiliateContext | null): asserts entry is T {
  if (!entry || entry.affiliateId !== (affiliate?.id ?? null)) throw new AppError('not_found')
}

/**
 * Takes a buyer off the waiting list (DELETE, docs/waiting-list.md): a waiting entry is `cancelled`, and so
 * is an offered one, whose tickets pass on at once. An entry that already ended (accepted,
 * expired, declined, cancelled) stays as it is: its basket, if any, is the buyer's. Another
 * seller's entry: 404.
 */
export async function leaveWaitingList(
  db: Db,
  options: { sellerId: string; affiliate: AffiliateContext | null; entryId: string; actor: AuditActor },
): Promise<void> {
  await db.transaction(async (tx) => {
    const entry = await lockEntry(tx, options.sellerId, options.entryId)
    assertEntryAccess(entry, options.affiliate)
    if (entry.status !== 'waiting' && entry.status !== 'offered') return
    await setEntry(tx, entry.id, { status: 'cancelled' })
    if (entry.status === 'offered') await endOfferHold(tx, entry.basketId)
    // The head may have changed, or the queue emptied: serve it, and let memories sell again.
    await nudgeQueue(tx, entry.inventoryId)
    await recordAudit(tx, options.actor, {
      action: 'stf.waiting_list.left',
      target: { type: 'waiting_entry', id: entry.id },
      sellerId: options.sellerId,
      data: { status: entry.status },
    })
  })
}

/** A seller's entry as it stands; another seller's or another affiliate's: 404. */
export async function getWaitingEntry(db: Db, options: { sellerId: string; affiliate: AffiliateContext | null; entryId: string }) {
  const entry = await findEntry(db, options.sellerId, options.entryId)
  assertEntryAccess(entry, options.affiliate)
  return entry
}
