import { EventEmitter } from 'node:events'
import { sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'

/** The channel on which every process hears that a seller's credentials or settings changed. */
export const SELLER_CHANGES_CHANNEL = 'seller_changes'

/**
 * Changes announced by this process. The database's notice reaches even this process a few
 * milliseconds after commit, so caches here stop trusting the seller at once, until it arrives.
 */
export const localSellerChanges = new EventEmitter<{ change: [sellerId: string] }>()

/**
 * Announces, inside the change's transaction, that cached credentials, affiliates or
 * settings of this seller are stale. Delivered to every process at commit, never before.
 */
export async function announceSellerChange(db: Db, sellerId: string): Promise<void> {
  await db.execute(sql`select pg_notify(${SELLER_CHANGES_CHANNEL}, ${sellerId})`)
  localSellerChanges.emit('change', sellerId)
}
