import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findSellerById } from '../sellers/sellers.repo.js'
import { pageTransactions, type LedgerPlace, type TransactionRow } from './transactions.repo.js'

/** Transaction, a row of the ledger (docs/payments.md). */
export type TransactionView = {
  id: string
  seller_id: string
  order_id: string
  kind: TransactionRow['kind']
  amount: number
  tickets: number
  gross: number
  discount: number
  interest: number
  payment_method: string | null
  affiliate_code: string | null
  coupon_code: string | null
  inventory_id: string | null
  variant: string | null
  created_at: string
}

export const toTransactionView = (row: TransactionRow): TransactionView => ({
  id: row.id,
  seller_id: row.sellerId,
  order_id: row.orderId,
  kind: row.kind,
  amount: row.amount,
  tickets: row.tickets,
  gross: row.gross,
  discount: row.discount,
  interest: row.interest,
  payment_method: row.paymentMethod,
  affiliate_code: row.affiliateCode,
  coupon_code: row.couponCode,
  inventory_id: row.inventoryId,
  variant: row.variant,
  created_at: row.createdAt.toISOString(),
})

/**
 * A listing's cursor: the place of the last row it answered (its transaction and `seq`),
 * base64url-encoded. Opaque to clients; one this listing did not give (not canonical, not a
 * place) is refused with 400 rather than read as the start.
 */
export const encodeCursor = ({ xid, seq }: LedgerPlace) => Buffer.from(`${xid}:${seq}`, 'latin1').toString('base64url')

export function decodeCursor(cursor: string): LedgerPlace {
  const text = Buffer.from(cursor, 'base64url').toString('latin1')
  const [, xid = '', seq = ''] = /^(\d{1,20}):([1-9]\d{0,15})$/.exec(text) ?? []
  const place = { xid, seq: Number(seq) }
  if (!xid || BigInt(xid) >= 2n ** 64n || encodeCursor(place) !== cursor) {
    throw new AppError('validation_error', { details: [{ path: 'cursor', message: 'is not a cursor this listing gave' }] })
  }
  return place
}

export type ListTransactionsOptions = {
  sellerId: string
  /** `[from, to)` on `created_at`. */
  from?: Date | undefined
  to?: Date | undefined
  orderId?: string | undefined
  cursor?: string | undefined
  /** 1..1000. */
  limit: number
}

/**
 * A page of a seller's ledger, oldest first (in the order it was written, settled: see
 * `pageTransactions`), and the cursor of the
 * next page: null when this page reached the end. An unknown seller: 404.
 */
export async function listTransactions(db: Db, options: ListTransactionsOptions): Promise<{ data: TransactionView[]; next_cursor: string | null }> {
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor)
  if (!(await findSellerById(db, options.sellerId))) throw new AppError('not_found')
  // One row more than the page tells whether another page follows.
  const rows = await pageTransactions(
    db,
    { sellerId: options.sellerId, from: options.from, to: options.to, orderId: options.orderId, after },
    options.limit + 1,
  )
  const page = rows.slice(0, options.limit)
  return { data: page.map(toTransactionView), next_cursor: rows.length > options.limit ? encodeCursor(page.at(-1)!) : null }
}
