import { z } from 'zod'
import { DIMENSIONS, type Dimension } from '../domain/reports/reports.repo.js'
import { MAX_PERIOD_DAYS } from '../domain/reports/sales-report.js'
import { ZDate, ZDateInput } from '../platform/http/schemas.js'
import { ZCode } from './common.schemas.js'

const ZCentavos = z.number().int()

const ZPeriodQuery = {
  from: ZDateInput.optional().describe('The first local date of the period (the seller’s time zone); default: 30 days before `to`'),
  to: ZDateInput.optional().describe(
    `The local date after the period, \`[from, to)\`; default: tomorrow, so today is in. At most ${MAX_PERIOD_DAYS} days after \`from\`, else 400`,
  ),
}

export const ZSalesReportQuery = z.object({
  ...ZPeriodQuery,
  basis: z
    .enum(['sold', 'event'])
    .default('sold')
    .describe('`sold`: when the ledger row was written (a refund: when it was done); `event`: the tickets’ date (a refund: its tickets’ date)'),
  group_by: z
    .string()
    .default('day')
    .transform((text) => [...new Set(text.split(',').map((part) => part.trim()))])
    .refine((parts): parts is Dimension[] => parts.every((part) => (DIMENSIONS as readonly string[]).includes(part)), {
      message: `must be one or more of ${DIMENSIONS.join(', ')}, comma-separated`,
    })
    .describe(`One or more of ${DIMENSIONS.join(', ')}, comma-separated (default \`day\`)`),
})

const ZMeasures = {
  tickets: z.number().int().describe('Sold − voided'),
  gross: ZCentavos.describe('Their face value, centavos'),
  discount: ZCentavos.describe('Coupons, positive (subtracted)'),
  interest: ZCentavos.describe('Installment interest'),
  net: ZCentavos.describe('gross − discount + interest'),
  refunded: ZCentavos.describe('Money of done refunds, positive'),
}

export const ZSalesReport = z
  .object({
    from: ZDate,
    to: ZDate,
    basis: z.enum(['sold', 'event']),
    currency: z.literal('BRL'),
    rows: z.array(
      z.object({
        key: z
          .object({
            day: ZDate.nullable().optional(),
            event_id: z.uuid().nullable().optional(),
            inventory_id: z.uuid().nullable().optional(),
            variant: z.string().nullable().optional(),
            payment_method: z.string().nullable().optional(),
            affiliate_code: z.string().nullable().optional(),
            coupon_code: z.string().nullable().optional(),
          })
          .describe('The grouped dimensions only; null where an entry has none'),
        ...ZMeasures,
      }),
    ),
    totals: z.object(ZMeasures).describe('The sum of the rows, exactly'),
  })
  .meta({ id: 'SalesReport' })

export const ZStatementParams = z.object({ id: z.uuid(), code: ZCode })

export const ZStatementQuery = z.object(ZPeriodQuery)

export const ZAffiliateStatement = z
  .object({
    affiliate_code: z.string(),
    from: ZDate,
    to: ZDate,
    tickets: z.number().int().describe('Sold in the period, less those of them voided in it'),
    gross: ZCentavos,
    discount: ZCentavos,
    net: ZCentavos.describe('gross − discount: interest is not the affiliate’s'),
    commission_rate: z.number().min(0).max(1),
    commission: ZCentavos.describe('commission_rate × net, rounded half-up to the centavo'),
    clawback: ZCentavos.describe('The commission on the net voided or refunded in the period of tickets sold in earlier periods, positive'),
    owed: ZCentavos.describe('commission − clawback'),
  })
  .meta({ id: 'AffiliateStatement' })
