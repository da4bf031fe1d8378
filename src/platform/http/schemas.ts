import { z } from 'zod'
import { ERRORS, type ErrorCode } from '../errors.js'

const codes = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]]

/** The error envelope, for the OpenAPI document. */
export const ZErrorEnvelope = z
  .object({
    code: z.enum(codes),
    message: z.string(),
    trace_id: z.string(),
    details: z
      .union([
        z
          .array(z.object({ path: z.string(), message: z.string() }))
          .describe('validation_error, insufficient_inventory, not_found: what is wrong, field by field'),
        z
          .record(z.string(), z.unknown())
          .describe(
            'basket_checked_out: `{ order_id }`; price_changed: `{ expected_total, total, basket }` (the Basket as GET answers it); inventory_unavailable: `{ inventory_id }`',
          ),
      ])
      .optional(),
  })
  .meta({ id: 'Error' })

/** The error envelope for each listed status, for the OpenAPI document: `response: { 200: ZThing, ...errorResponses(400, 401) }`. */
export const errorResponses = <S extends number>(...statuses: S[]) =>
  Object.fromEntries(statuses.map((status) => [status, ZErrorEnvelope])) as Record<S, typeof ZErrorEnvelope>

export const ZUuid = z.uuid()

/** `/{id}` of a resource. */
export const ZIdParams = z.object({ id: z.uuid() })

/** An instant as the API answers it: ISO 8601, UTC. */
export const iso = (date: Date) => date.toISOString()

/** `page` (1-based) and `limit` (1..100, default 20), as every list takes them. */
export const ZPageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
})
export type TPageQuery = z.infer<typeof ZPageQuery>

export const ZPageMeta = z
  .object({
    count: z.number().int(),
    limit: z.number().int(),
    page: z.number().int(),
    total: z.number().int(),
  })
  .meta({ id: 'PaginationMeta' })

export const pageOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: ZPageMeta })

export function pageMeta(query: TPageQuery, count: number, total: number) {
  return { count, limit: query.limit, page: query.page, total }
}
