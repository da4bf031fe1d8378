import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findSellerClock, listRefundTargets, readReport, sumSales, type Basis, type Dimension, type RefundTarget } from './reports.repo.js'

/** The longest period a report or statement reads, in days. */
export const MAX_PERIOD_DAYS = 366
/** Without `from`, a period of this many days up to `to`. */
const DEFAULT_PERIOD_DAYS = 30

/** The key's name of each dimension, as a row answers it. */
export const KEY_NAMES: Record<Dimension, string> = {
  day: 'day',
  event: 'event_id',
  inventory: 'inventory_id',
  variant: 'variant',
  payment_method: 'payment_method',
  affiliate: 'affiliate_code',
  coupon: 'coupon_code',
}

export type Measures = { tickets: number; gross: number; discount: number; interest: number; net: number; refunded: number }
export type SalesRow = { key: Record<string, string | null> } & Measures
export type SalesReport = { from: string; to: string; basis: Basis; currency: 'BRL'; rows: SalesRow[]; totals: Measures }

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
const daysBetween = (from: string, to: string) => (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000

/**
 * The period of a report: `to` defaults to tomorrow in the seller's time zone (so today is in),
 * `from` to 30 days before `to`. `to` must follow `from`, by at most 366 days: else 400.
 */
export function resolvePeriod(query: { from?: string | undefined; to?: string | undefined }, today: string): { from: string; to: string } {
  const to = query.to ?? addDays(today, 1)
  const from = query.from ?? addDays(to, -DEFAULT_PERIOD_DAYS)
  const days = daysBetween(from, to)
  if (days <= 0) throw new AppError('validation_error', { details: [{ path: 'querystring.to', message: 'must be after from' }] })
  if (days > MAX_PERIOD_DAYS) {
    throw new AppError('validation_error', { details: [{ path: 'querystring.to', message: `must be at most ${MAX_PERIOD_DAYS} days after from` }] })
  }
  return { from, to }
}

/** The seller's time zone and the period in it; an unknown seller: 404. */
export async function sellerPeriod(db: Db, sellerId: string, query: { from?: string | undefined; to?: string | undefined }) {
  const clock = await findSellerClock(db, sellerId)
  if (!clock) throw new AppError('not_found')
  return { sellerId, timezone: clock.timezone, ...resolvePeriod(query, clock.today) }
}

/**
 * Splits `amount` over exact weights by largest remainder, the earlier first on a tie: the
 * shares add up to `amount`. Weights are bigints so that ratios of tickets need no rounding.
 */
export function spreadByLargestRemainder(amount: number, weights: readonly bigint[]): number[] {
  const total = weights.reduce((sum, weight) => sum + weight, 0n)
  if (amount === 0 || total === 0n) return weights.map(() => 0)
  const exact = weights.map((weight) => BigInt(amount) * weight)
  const shares = exact.map((product) => product / total)
  let left = BigInt(amount) - shares.reduce((sum, share) => sum + share, 0n)
  const order = exact
    .map((product, n) => ({ n, remainder: product % total }))
    .sort((x, y) => (y.remainder > x.remainder ? 1 : y.remainder < x.remainder ? -1 : x.n - y.n))
  for (const { n } of order) {
    if (left === 0n) break
    shares[n]! += 1n
    left -= 1n
  }
  return shares.map(Number)
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b))

/**
 * How a refund is shared over its order's items: with tickets, by the value of its tickets in
 * each item (an item's net × the share of its tickets refunded); without, by each item's net;
 * when those are all 0 (free tickets), by tickets. Exact: weights on a common denominator.
 */
export function refundWeights(items: readonly Pick<RefundTarget, 'has_tickets' | 'sale_net' | 'sale_tickets' | 'refunded_tickets'>[]): bigint[] {
  if (items.length === 0) return []
  if (items[0]!.has_tickets) {
    const lcm = items.reduce((m, item) => (item.sale_tickets > 0 ? (m * BigInt(item.sale_tickets)) / gcd(m, BigInt(item.sale_tickets)) : m), 1n)
    const byValue = items.map((item) =>
      item.sale_tickets > 0 ? (BigInt(item.sale_net) * BigInt(item.refunded_tickets) * lcm) / BigInt(item.sale_tickets) : 0n,
    )
    return byValue.some((weight) => weight > 0n) ? byValue : items.map((item) => BigInt(item.refunded_tickets))
  }
  const byNet = items.map((item) => BigInt(Math.max(item.sale_net, 0)))
  return byNet.some((weight) => weight > 0n) ? byNet : items.map((item) => BigInt(item.sale_tickets))
}

type Entry = { values: (string | null)[] } & Measures

const ZERO: Measures = { tickets: 0, gross: 0, discount: 0, interest: 0, net: 0, refunded: 0 }

/** The parts of each done refund, as entries of the report: split over its items, then kept when dated in the period. */
function refundEntries(targets: readonly RefundTarget[], p: { basis: Basis; from: string; to: string; groupBy: readonly Dimension[] }): Entry[] {
  const byRefund = new Map<string, RefundTarget[]>()
  for (const target of targets) byRefund.set(target.refund_id, [...(byRefund.get(target.refund_id) ?? []), target])
  const entries: Entry[] = []
  for (const rows of byRefund.values()) {
    const items = rows.filter((row) => row.order_item_id !== null)
    const weights = refundWeights(items)
    const usable = weights.some((weight) => weight > 0n)
    // A refund with nothing to spread over (no item sold) stays whole, with no item's dimensions.
    const parts = usable
      ? spreadByLargestRemainder(rows[0]!.amount, weights).map((refunded, n) => ({ refunded, item: items[n]! as RefundTarget | null, refund: rows[0]! }))
      : [{ refunded: rows[0]!.amount, item: null, refund: rows[0]! }]
    for (const { refunded, item, refund } of parts) {
      const day = p.basis === 'sold' ? refund.refund_day : (item?.event_day ?? null)
      if (p.basis === 'event' && (day === null || day < p.from || day >= p.to)) continue
      const value: Record<Dimension, string | null> = {
        day,
        event: item?.event_id ?? null,
        inventory: item?.inventory_id ?? null,
        variant: item?.variant ?? null,
        payment_method: refund.payment_method ?? item?.sale_method ?? null,
        affiliate: refund.affiliate_code,
        coupon: item ? item.coupon_code : refund.refund_coupon,
      }
      entries.push({ ...ZERO, refunded, values: p.groupBy.map((dimension) => value[dimension]) })
    }
  }
  return entries
}

const MEASURES = ['tickets', 'gross', 'discount', 'interest', 'net', 'refunded'] as const

/** Sums entries per key; leaves out rows whose every measure is 0; sorts by the key, nulls last. */
export function groupEntries(entries: readonly Entry[], groupBy: readonly Dimension[]): { rows: SalesRow[]; totals: Measures } {
  const groups = new Map<string, Entry>()
  for (const entry of entries) {
    const id = JSON.stringify(entry.values)
    const group = groups.get(id) ?? { ...ZERO, values: entry.values }
    for (const measure of MEASURES) group[measure] += entry[measure]
    groups.set(id, group)
  }
  const kept = [...groups.values()].filter((group) => MEASURES.some((measure) => group[measure] !== 0))
  kept.sort((x, y) => {
    for (let n = 0; n < groupBy.length; n++) {
      const a = x.values[n] ?? null
      const b = y.values[n] ?? null
      if (a === b) continue
      if (a === null) return 1
      if (b === null) return -1
      return a < b ? -1 : 1
    }
    return 0
  })
  const totals = { ...ZERO }
  for (const group of kept) for (const measure of MEASURES) totals[measure] += group[measure]
  const rows = kept.map(({ values, ...measures }) => ({
    key: Object.fromEntries(groupBy.map((dimension, n) => [KEY_NAMES[dimension], values[n] ?? null])),
    ...measures,
  }))
  return { rows, totals }
}

export type GetSalesReportOptions = {
  sellerId: string
  from?: string | undefined
  to?: string | undefined
  basis: Basis
  groupBy: readonly Dimension[]
}

/**
 * A seller's sales report (docs/reports.md): the ledger's sale and void rows of the period,
 * summed in SQL per group, and its done refunds split over their items by largest remainder;
 * rows add up to the totals exactly. An unknown seller: 404.
 */
export async function getSalesReport(db: Db, options: GetSalesReportOptions): Promise<SalesReport> {
  const period = await sellerPeriod(db, options.sellerId, options)
  const query = { ...period, basis: options.basis, groupBy: options.groupBy }
  const [sales, targets] = await readReport(db, async (tx) => [await sumSales(tx, query), await listRefundTargets(tx, query)] as const)
  const entries: Entry[] = [...sales.map((sale) => ({ ...sale, refunded: 0 })), ...refundEntries(targets, query)]
  return { from: period.from, to: period.to, basis: options.basis, currency: 'BRL', ...groupEntries(entries, options.groupBy) }
}
