import { and, asc, eq, gt, gte, lt } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { transactions } from './payments.table.js'

export type TransactionRow = typeof transactions.$inferSelect

export type TransactionFilter = {
  sellerId: string
  /** `[from, to)` on `created_at`. */
  from?: Date | undefined
  to?: Date | undefined
  orderId?: string | undefined
  /** Only rows written after the row of this `seq`. */
  afterSeq?: number | undefined
}

/** Up to `limit` rows of a seller's ledger, in the order they were written (`seq`; the index transactions_seller_seq_idx). */
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
        filter.afterSeq === undefined ? undefined : gt(transactions.seq, filter.afterSeq),
      ),
    )
    .orderBy(asc(transactions.seq))
    .limit(limit)
