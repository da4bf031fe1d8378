import { randomUUID } from 'node:crypto'
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { Executable } from '../../platform/db/transaction-ending-with.js'
import { spreadProportionally } from '../baskets/price-basket.js'
import type { CouponSnapshot } from '../orders/orders.table.js'
import { transactions, type TransactionKind } from './payments.table.js'

/** One row of the ledger, as written (docs/payments.md). */
export type LedgerRow = {
  id: string
  sellerId: string
  orderId: string
  kind: TransactionKind
  amount: number
  tickets: number
  gross: number
  discount: number
  interest: number
  paymentMethod: string | null
  affiliateCode: string | null
  couponCode: string | null
  orderItemId: string | null
  inventoryId: string | null
  variant: string | null
  paymentId: string | null
  refundId: string | null
}

/** What the ledger copies from an order. */
export type LedgerOrder = {
  id: string
  sellerId: string
  interest: number
  affiliateCode: string | null
  coupon: CouponSnapshot | null
}

/** What the ledger copies from an order item. */
export type LedgerItem = {
  id: string
  inventoryId: string
  variant: string | null
  quantity: number
  unitPrice: number
  discount: number
  total: number
  coupon: CouponSnapshot | null
}

const money = (order: LedgerOrder, kind: TransactionKind, amount: number, method: string | null) => ({
  id: randomUUID(),
  sellerId: order.sellerId,
  orderId: order.id,
  kind,
  amount,
  tickets: 0,
  gross: 0,
  discount: 0,
  interest: 0,
  paymentMethod: method,
  affiliateCode: order.affiliateCode,
  couponCode: order.coupon?.code ?? null,
  orderItemId: null,
  inventoryId: null,
  variant: null,
  paymentId: null,
  refundId: null,
})

/**
 * The sale of an order's tickets, as they become valid (paid at checkout, or when its payment
 * arrives): one row per item, its value after discount with its share of the order's interest
 * (largest remainder by item total), so that the rows add up to the order's total.
 */
export function saleRows(order: LedgerOrder, items: readonly LedgerItem[], method: string): LedgerRow[] {
  const interest = spreadProportionally(
    order.interest,
    items.map((item) => item.total),
  )
  return items.map((item, n) => {
    const gross = item.unitPrice * item.quantity
    return {
      ...money(order, 'sale', gross - item.discount + interest[n]!, method),
      tickets: item.quantity,
      gross,
      discount: item.discount,
      interest: interest[n]!,
      couponCode: item.coupon?.code ?? order.coupon?.code ?? null,
      orderItemId: item.id,
      inventoryId: item.inventoryId,
      variant: item.variant,
    }
  })
}

/** Money in: a payment of `amount` > 0 (a free order's payment of 0 moves no money, and writes none). */
export const paymentRows = (order: LedgerOrder, payment: { id: string; amount: number; method: string }): LedgerRow[] =>
  payment.amount > 0 ? [{ ...money(order, 'payment', payment.amount, payment.method), paymentId: payment.id }] : []

/** Money out: a refund, once done. */
export const refundRow = (order: LedgerOrder, refund: { id: string; amount: number }, method: string | null): LedgerRow => ({
  ...money(order, 'refund', -refund.amount, method),
  refundId: refund.id,
})

/**
 * The void of tickets that leave a confirmed order, one row per item they belong to: their share
 * of the item's sale row (its gross, discount and interest each), where the first n tickets of an
 * item of q are worth ⌊value × n / q⌋, so that whatever order the tickets of an item are voided
 * in, its voids add up to exactly its sale. Reads the items' sale and earlier voids: call it
 * under the order's lock. Items never sold (a pending order's) write nothing.
 */
export async function voidRows(tx: Db, orderId: string, voided: ReadonlyMap<string, number>): Promise<LedgerRow[]> {
  if (voided.size === 0) return []
  const rows = await tx
    .select()
    .from(transactions)
    .where(and(eq(transactions.orderId, orderId), inArray(transactions.kind, ['sale', 'void']), inArray(transactions.orderItemId, [...voided.keys()])))
  const out: LedgerRow[] = []
  for (const [itemId, count] of voided) {
    const sale = rows.find((row) => row.kind === 'sale' && row.orderItemId === itemId)
    if (!sale || count <= 0) continue
    const before = -rows.filter((row) => row.kind === 'void' && row.orderItemId === itemId).reduce((sum, row) => sum + row.tickets, 0)
    const share = (value: number) => Math.floor((value * (before + count)) / sale.tickets) - Math.floor((value * before) / sale.tickets)
    const gross = share(sale.gross)
    const discount = share(sale.discount)
    const interest = share(sale.interest)
    out.push({
      id: randomUUID(),
      sellerId: sale.sellerId,
      orderId,
      kind: 'void',
      amount: -(gross - discount + interest),
      tickets: -count,
      gross: -gross,
      discount: -discount,
      interest: -interest,
      paymentMethod: sale.paymentMethod,
      affiliateCode: sale.affiliateCode,
      couponCode: sale.couponCode,
      orderItemId: itemId,
      inventoryId: sale.inventoryId,
      variant: sale.variant,
      paymentId: null,
      refundId: null,
    })
  }
  return out
}

/** Writes ledger rows, however many, as one statement (one array per column). Nothing to write: a statement that does nothing. */
export const insertLedgerRows = (tx: Db, rows: readonly LedgerRow[]): Executable<unknown> => ({
  execute: async () => {
    if (rows.length === 0) return
    const col = <K extends keyof LedgerRow>(key: K) => sql.param(rows.map((row) => row[key]))
    await tx.execute(sql`
      insert into transactions (id, seller_id, order_id, kind, amount, tickets, gross, discount, interest, payment_method, affiliate_code,
                                coupon_code, order_item_id, inventory_id, variant, payment_id, refund_id)
      select * from unnest(${col('id')}::uuid[], ${col('sellerId')}::uuid[], ${col('orderId')}::uuid[], ${col('kind')}::text[],
                           ${col('amount')}::int8[], ${col('tickets')}::int[], ${col('gross')}::int8[], ${col('discount')}::int8[],
                           ${col('interest')}::int8[], ${col('paymentMethod')}::text[], ${col('affiliateCode')}::text[], ${col('couponCode')}::text[],
                           ${col('orderItemId')}::uuid[], ${col('inventoryId')}::uuid[], ${col('variant')}::text[], ${col('paymentId')}::uuid[],
                           ${col('refundId')}::uuid[])`)
  },
})
