import { and, asc, eq, gte, lt, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { transactions } from './payments.table.js'

export type TransactionRow = typeof transactions.$inferSelect

export type TransactionFilter = {
  sellerId: string
  /** `[from, to)` on `created_at`. */
  from?: Date | undefined
  to?: Date | undefined
  orderId?: string | undefined
  /** Only rows after this place (the transaction that wrote a row, and its `seq`). */
  after?: LedgerPlace | undefined
}

/** A row's place in the ledger's listing: its transaction id (`xid8`, decimal) and its `seq`. */
export type LedgerPlace = { xid: string; seq: number }

/**
 * Up to `limit` rows of a seller's ledger, in the order their transactions were written and then
 * `seq` (the index transactions_seller_xid_idx), and only those written by transactions older
 * than every one still running: a row committed after a later one's is never paged past.
 */
export const pageTransactions = (db: Db, filter: TransactionFilter, limit: number): Promise<TransactionRow[]> =>
  db
    .select()
    .from(transactions)
    .where(
      and(
        eq(transactions.sellerId, filter.sellerId),
        filter.from ? gte(transactions.createdAt, filter.from) : undefined,
        filter.to ? lt(transactions.createdAt, filter.to) : undefined,
        filter.orderId ? eq(transactions.orderId, filter.orderId) : undefined,
        filter.after === undefined ? undefined : sql`(${transactions.xid}, ${transactions.seq}) > (${filter.after.xid}::xid8, ${filter.after.seq})`,
        sql`${transactions.xid} < pg_snapshot_xmin(pg_current_snapshot())`,
      ),
    )
    .orderBy(asc(transactions.xid), asc(transactions.seq))
    .limit(limit)
