import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { getAffiliateStatement } from '../domain/reports/affiliate-statement.js'
import { getSalesReport } from '../domain/reports/sales-report.js'
import { requirePermission } from '../iam/staff-auth.js'
import { errorResponses, ZIdParams } from '../platform/http/schemas.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'
import { ZAffiliateStatement, ZSalesReport, ZSalesReportQuery, ZStatementParams, ZStatementQuery } from './reports.schemas.js'

/** What was sold, of what, through whom, and what each affiliate is owed (docs/reports.md), read from the ledger. */
export const reportRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/sellers/:id/reports/sales',
    {
      onRequest: requirePermission('adm.orders.read'),
      schema: {
        tags: TAGS,
        operationId: 'admSalesReport',
        summary: 'A sales report',
        description:
          'Needs `adm.orders.read`. The ledger’s sales, voids and done refunds of `[from, to)` (local dates in the seller’s time zone), ' +
          'in integer centavos, grouped by `group_by`. Rows add up to `totals` exactly: a refund without tickets is spread over its ' +
          'order’s inventories by net, largest remainder. All-zero rows are left out. A period over 366 days, `to` not after ' +
          '`from` or an unknown `group_by`: 400. An unknown seller: 404. Transfers are no sales.',
        security: STAFF_SECURITY,
        params: ZIdParams,
        querystring: ZSalesReportQuery,
        response: { 200: ZSalesReport, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { from, to, basis, group_by } = request.query
      return getSalesReport(app.db, { sellerId: request.params.id, from, to, basis, groupBy: group_by })
    },
  )

  app.get(
    '/sellers/:id/affiliates/:code/statement',
    {
      onRequest: requirePermission('adm.orders.read'),
      schema: {
        tags: TAGS,
        operationId: 'admAffiliateStatement',
        summary: 'What an affiliate is owed',
        description:
          'Needs `adm.orders.read`. Commission on the net of coupons of what the affiliate sold in `[from, to)` (local dates), less ' +
          'its voids in the period; `clawback`, the commission on the net voided or refunded in the period of its sales of ' +
          'earlier periods; `owed = commission − clawback`. Each commission rounded half-up to the centavo. No affiliate of this ' +
          'seller with the code, or an unknown seller: 404.',
        security: STAFF_SECURITY,
        params: ZStatementParams,
        querystring: ZStatementQuery,
        response: { 200: ZAffiliateStatement, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getAffiliateStatement(app.db, { sellerId: request.params.id, code: request.params.code, ...request.query }),
  )
}
