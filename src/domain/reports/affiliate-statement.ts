import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { readReport, sumAffiliateStatement } from './reports.repo.js'
import { sellerPeriod } from './sales-report.js'

export type AffiliateStatement = {
  affiliate_code: string
  from: string
  to: string
  tickets: number
  gross: number
  discount: number
  net: number
  commission_rate: number
  commission: number
  clawback: number
  owed: number
}

export type GetAffiliateStatementOptions = { sellerId: string; code: string; from?: string | undefined; to?: string | undefined }

/**
 * What an affiliate is owed for a period (docs/reports.md): its commission on the net of coupons
 * (`gross − discount`; interest is the seller's) of the tickets it sold in the period, less those
 * voided in it; less the clawback, the commission on the net voided in the period of tickets it
 * sold in earlier periods (refunds with tickets and cancellations void them). Each commission is
 * computed in numeric and rounded half-up to the centavo. An unknown seller, or no affiliate of
 * this seller with the code: 404.
 */
export async function getAffiliateStatement(db: Db, options: GetAffiliateStatementOptions): Promise<AffiliateStatement> {
  const period = await sellerPeriod(db, options.sellerId, options)
  const sums = await readReport(db, (tx) => sumAffiliateStatement(tx, { ...period, code: options.code }))
  if (!sums) throw new AppError('not_found')
  return {
    affiliate_code: sums.affiliate_code,
    from: period.from,
    to: period.to,
    tickets: sums.tickets,
    gross: sums.gross,
    discount: sums.discount,
    net: sums.net,
    commission_rate: Number(sums.commission_rate),
    commission: sums.commission,
    clawback: sums.clawback,
    owed: sums.commission - sums.clawback,
  }
}
